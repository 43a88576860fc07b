#!/bin/sh
# make demo: profile the bundled PyTorch trace and show where the time went.
set -e
cd "$(dirname "$0")/.."
mkdir -p samples/out
echo "\$ ./tracefold profile samples/pytorch-cnn-train.trace.json.gz -o samples/out/pytorch-cnn.pb.gz"
./tracefold profile samples/pytorch-cnn-train.trace.json.gz -o samples/out/pytorch-cnn.pb.gz
if ./tracefold top --help >/dev/null 2>&1; then
	echo "\$ ./tracefold top -n 15 samples/out/pytorch-cnn.pb.gz"
	./tracefold top -n 15 samples/out/pytorch-cnn.pb.gz
fi
echo "\$ ./tracefold flame samples/pytorch-cnn-train.trace.json.gz -o samples/out/pytorch-cnn.svg"
./tracefold -q flame samples/pytorch-cnn-train.trace.json.gz -o samples/out/pytorch-cnn.svg
echo "(a flame graph picture: open samples/out/pytorch-cnn.svg in a browser; .html adds zoom and search)"
if command -v go >/dev/null 2>&1; then
	echo "\$ go tool pprof -top -nodecount=15 samples/out/pytorch-cnn.pb.gz"
	GOCACHE=${GOCACHE:-/tmp/tf-gocache} go tool pprof -top -nodecount=15 samples/out/pytorch-cnn.pb.gz
	echo "(flame graph: go tool pprof -http=: samples/out/pytorch-cnn.pb.gz)"
fi
