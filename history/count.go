package history

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// CountLines counts the newlines of the JSONL file at path, reading it
// in 1 MiB blocks without decoding: about its number of records (a blank
// line or a truncated last record makes it off by a few), to decide how
// to read it before reading it.
func CountLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
