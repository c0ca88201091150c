# A test client that exits with status 3 while its first request is in
# flight.
read -r line
exit 3
