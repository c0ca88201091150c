package redisadmin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ErrLoading: the server is still loading its data set from disk.
var ErrLoading = errors.New("still loading its data set")

// ServerPid asks the Redis server at addr for its process id ("INFO
// server persistence"), speaking just enough RESP for that. It tells a
// ready server of ours from a foreign one that happens to hold the port. A
// server still loading its data (Redis answers INFO while loading, but not
// GET) is not ready: that is an error, as is an error reply.
func ServerPid(ctx context.Context, addr string) (int, error) {
	d := net.Dialer{Timeout: probeTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // a cancel ends a blocked read
	defer stop()
	deadline := time.Now().Add(probeTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, "INFO server persistence\r\n"); err != nil {
		return 0, err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	line = strings.TrimRight(line, "\r\n")
	if strings.HasPrefix(line, "-") {
		return 0, errors.New(line[1:])
	}
	if !strings.HasPrefix(line, "$") {
		return 0, fmt.Errorf("unexpected reply %q", line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("unexpected reply %q", line)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, err
	}
	pid := -1
	for _, l := range strings.Split(string(body), "\n") {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "process_id:"); ok {
			if pid, err = strconv.Atoi(v); err != nil {
				return 0, err
			}
		}
		if l == "loading:1" {
			return 0, ErrLoading
		}
	}
	if pid >= 0 {
		return pid, nil
	}
	return 0, errors.New("INFO server has no process_id")
}

// probeTimeout bounds one readiness probe; waitReady retries until its own
// deadline, so a short probe only makes an early exit noticed sooner.
const probeTimeout = 250 * time.Millisecond
