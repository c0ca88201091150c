package harness

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

	"github.com/redis/go-redis/v9"
)

// keyEvents follows the lock key's writes on every node (keyspace
// notifications E$g, one subscriber on each admin address) to see it set
// without an expiry, between a SETNX and its PEXPIRE: a "set" not followed
// in the same reply by an "expire" (as SET PX sends them). A node that
// restarts is no longer followed.
type keyEvents struct {
	key    string // the workload's lock key: events of keys containing it count
	events chan noExpiry
	conns  []net.Conn
	admin  map[string]*redis.Client // by node, for PTTL
}

// noExpiry is a key seen set without an expiry on a node, and when.
type noExpiry struct {
	node, key string
	at        time.Time
}

// followKeys subscribes to every node's key events; the error says why
// it could not (the nodes refuse CONFIG SET, say).
func followKeys(ctx context.Context, r *run) (*keyEvents, error) {
	k := &keyEvents{key: r.cfg.Workloads.Key, events: make(chan noExpiry, 64), admin: map[string]*redis.Client{}}
	for _, n := range r.cluster.Nodes() {
		addr, err := r.cluster.AdminAddr(n)
		if err == nil {
			err = k.follow(ctx, n, addr)
		}
		if err != nil {
			k.close()
			return nil, fmt.Errorf("node %s: %w", n, err)
		}
	}
	return k, nil
}

// follow turns on the node's notifications and subscribes to them.
func (k *keyEvents) follow(ctx context.Context, node, addr string) error {
	rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1})
	k.admin[node] = rc
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := rc.ConfigSet(cctx, "notify-keyspace-events", "E$g").Err(); err != nil {
		return err
	}
	var d net.Dialer
	c, err := d.DialContext(cctx, "tcp", addr)
	if err != nil {
		return err
	}
	k.conns = append(k.conns, c)
	if _, err := c.Write([]byte("SUBSCRIBE __keyevent@0__:set __keyevent@0__:expire\r\n")); err != nil {
		return err
	}
	go k.read(node, bufio.NewReader(c))
	return nil
}

// read turns the node's messages into noExpiry events until its
// connection ends. An event is dropped when nobody takes it in time.
func (k *keyEvents) read(node string, br *bufio.Reader) {
	var held []string // a message read ahead
	for {
		m, err := held, error(nil)
		if held = nil; m == nil {
			m, err = readArray(br)
		}
		if err != nil {
			return
		}
		if len(m) != 3 || m[0] != "message" || !strings.HasSuffix(m[1], ":set") || !strings.Contains(m[2], k.key) {
			continue
		}
		if br.Buffered() > 0 { // the rest of the same reply: an expire of the key?
			if held, err = readArray(br); err != nil {
				return
			}
			if len(held) == 3 && strings.HasSuffix(held[1], ":expire") && held[2] == m[2] {
				held = nil
				continue
			}
		}
		select {
		case k.events <- noExpiry{node: node, key: m[2], at: time.Now()}:
		default:
		}
	}
}

// readArray reads one RESP2 array of bulk strings and integers.
func readArray(br *bufio.Reader) ([]string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[0] != '*' {
		return nil, errors.New("keyevents: not an array: " + strconv.Quote(line))
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for range n {
		if line, err = br.ReadString('\n'); err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if len(line) == 0 {
			return nil, errors.New("keyevents: empty element")
		}
		switch line[0] {
		case ':':
			out = append(out, line[1:])
		case '$':
			size, err := strconv.Atoi(line[1:])
			if err != nil || size < 0 {
				return nil, fmt.Errorf("keyevents: bad bulk length %q", line)
			}
			b := make([]byte, size+2)
			if _, err := io.ReadFull(br, b); err != nil {
				return nil, err
			}
			out = append(out, string(b[:size]))
		default:
			return nil, fmt.Errorf("keyevents: unexpected element %q", line)
		}
	}
	return out, nil
}

// noExpiryNow reports whether key still has no expiry on node (PTTL -1).
func (k *keyEvents) noExpiryNow(ctx context.Context, node, key string) bool {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	d, err := k.admin[node].PTTL(cctx, key).Result()
	return err == nil && d == -1
}

// close ends every subscription.
func (k *keyEvents) close() {
	if k == nil {
		return
	}
	for _, c := range k.conns {
		c.Close()
	}
	for _, rc := range k.admin {
		rc.Close()
	}
}
