# A test client that reads requests and never answers. Its child (a sleep
# in its process group) must die with it.
sleep 100 &
echo "child $!" >&2
while read -r line; do :; done
wait
