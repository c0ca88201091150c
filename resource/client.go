package resource

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Client is one connection to a resource. A request whose reply does not
// arrive (context ended, connection broken) has an unknown outcome; the
// client then drops the connection and dials afresh on the next request.
// Safe for concurrent use (requests are serialised).
type Client struct {
	addr string

	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
}

// NewClient returns a client for the resource at addr (usually a proxy).
// It dials lazily.
func NewClient(addr string) *Client { return &Client{addr: addr} }

// Close drops the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropLocked()
}

func (c *Client) dropLocked() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn, c.r = nil, nil
	return err
}

// do sends one request line and reads one reply line.
func (c *Client) do(ctx context.Context, req string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", c.addr)
		if err != nil {
			return "", fmt.Errorf("resource: dial: %w", err)
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Time{}
	}
	_ = c.conn.SetDeadline(dl)
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := c.conn.Write([]byte(req + "\n")); err != nil {
		c.dropLocked()
		return "", fmt.Errorf("resource: %w", err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.dropLocked()
		if ctx.Err() != nil {
			return "", fmt.Errorf("resource: %w", ctx.Err())
		}
		return "", fmt.Errorf("resource: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// Ping checks that the resource answers.
func (c *Client) Ping(ctx context.Context) error {
	r, err := c.do(ctx, "PING")
	if err == nil && r != "PONG" {
		err = fmt.Errorf("resource: unexpected reply %q", r)
	}
	return err
}

// Read returns the value of key, unfenced: never rejected, and it does not
// raise the key's highest token. A holder that will write what it read
// must use ReadFenced.
func (c *Client) Read(ctx context.Context, key string) (int64, error) {
	return c.ReadFenced(ctx, key, 0)
}

// ReadFenced returns the value of key, carrying fence (0 = unfenced, as
// Read). A fencing resource rejects it with ErrStale when fence is below
// the highest token accepted on key; accepted, it raises that token to
// fence, so every later write or read with a lower token is rejected.
func (c *Client) ReadFenced(ctx context.Context, key string, fence int64) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	req := "READ " + key
	if fence != 0 {
		req = fmt.Sprintf("READ %s %d", key, fence)
	}
	r, err := c.do(ctx, req)
	if err != nil {
		return 0, err
	}
	return parseOK(r)
}

// Write sets key to value, carrying fence. ErrStale means rejected.
func (c *Client) Write(ctx context.Context, key string, value, fence int64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	r, err := c.do(ctx, fmt.Sprintf("WRITE %s %d %d", key, value, fence))
	if err != nil {
		return err
	}
	_, err = parseOK(r)
	return err
}

// Enter registers a caller inside key's API and returns how many callers
// are inside now (more than 1 is a violation of one-at-a-time).
func (c *Client) Enter(ctx context.Context, key string, fence int64) (int, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	r, err := c.do(ctx, fmt.Sprintf("ENTER %s %d", key, fence))
	if err != nil {
		return 0, err
	}
	n, err := parseOK(r)
	return int(n), err
}

// Leave unregisters a caller and returns how many remain.
func (c *Client) Leave(ctx context.Context, key string) (int, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	r, err := c.do(ctx, "LEAVE "+key)
	if err != nil {
		return 0, err
	}
	n, err := parseOK(r)
	return int(n), err
}
