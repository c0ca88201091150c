# A test client that answers its first request with a line that is not
# JSON. Its child (a sleep in its process group) must die with it.
sleep 100 &
echo "child $!" >&2
read -r line
echo "this is not json"
wait
