package procclient

import (
	"bufio"
	"bytes"
)

// stderrLineMax is the longest stderr line logged whole; longer ones are
// cut.
const stderrLineMax = 4 << 10

// readStderr hands each line the client writes to stderr to Log, prefixed
// "stderr: ", until stderr closes.
func (c *Client) readStderr() {
	defer close(c.stderrDone)
	r := bufio.NewReaderSize(c.stderr, stderrLineMax)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			c.logf("stderr: %s [line cut]", line)
			err = skipLine(r)
		} else if len(line) > 0 {
			c.logf("stderr: %s", bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			return
		}
	}
}

// skipLine discards the rest of a cut line.
func skipLine(r *bufio.Reader) error {
	for {
		if _, err := r.ReadSlice('\n'); err != bufio.ErrBufferFull {
			return err
		}
	}
}
