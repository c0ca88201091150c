package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// Dialer is the dial function of a client's connections to the cluster.
// It maps every address the cluster announces (a node's client address,
// which is its data proxy, in CLUSTER SLOTS, MOVED and ASK, whatever the
// node's role) to the client's own proxy to that node, and lets the
// client's proxy addresses themselves through (seed addresses); any other
// address is refused with ErrUnknownAddr, so that a client never reaches
// a node around its proxies. An unknown client is refused at dial time.
func (c *Cluster) Dialer(client string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		to, err := c.clientAddr(client, addr)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}
}

// clientAddr is the client's proxy address for an announced address or
// one of the client's proxy addresses.
func (c *Cluster) clientAddr(client, addr string) (string, error) {
	if name, ok := c.byData[addr]; ok {
		return c.Addr(client, name)
	}
	for _, n := range c.all {
		a, err := c.Addr(client, n.Name())
		if err != nil {
			return "", err
		}
		if a == addr {
			return a, nil
		}
	}
	return "", fmt.Errorf("%w: %s (client %s)", ErrUnknownAddr, addr, client)
}

// MaxRedirects is the ClusterOptions.MaxRedirects of ClusterOptions: a
// command may follow a MOVED and then an ASK (a client with a stale slot
// map during a migration). In go-redis v9.23 the same budget also bounds
// the retries of a command after a network error (first on the same
// node, then on another) and after CLUSTERDOWN, TRYAGAIN, READONLY or
// LOADING replies; ClusterOptions stops the network-error retries (see
// ErrNoReply), so only replies that say the command was not applied are
// retried.
const MaxRedirects = 2

// ClusterOptions are the go-redis options of a ClusterClient for client:
// seeded with the client's proxies to every node (masters first), dialing
// through Dialer(client), following MOVED and ASK (MaxRedirects), and
// never sending a command again once it may have reached a node: node
// clients have no retries (MaxRetries -1) and a network error after a
// command may have been sent ends the command with ErrNoReply instead of
// the cluster client's retry. Writes go to masters only (ReadOnly false),
// context deadlines bound each command (ContextTimeoutEnabled), RESP2.
func (c *Cluster) ClusterOptions(client string) (*redis.ClusterOptions, error) {
	var addrs []string
	for _, n := range c.Nodes() {
		a, err := c.Addr(client, n)
		if err != nil {
			return nil, err
		}
		addrs = append(addrs, a)
	}
	return &redis.ClusterOptions{
		Addrs:                 addrs,
		Dialer:                c.Dialer(client),
		NewClient:             newNodeClient,
		MaxRedirects:          MaxRedirects,
		MaxRetries:            -1,
		ReadOnly:              false,
		ContextTimeoutEnabled: true,
		Protocol:              2,
		DisableIdentity:       true,
		DialTimeout:           time.Second,
		ReadTimeout:           3 * time.Second,
		WriteTimeout:          3 * time.Second,
	}, nil
}

// NewClusterClient is redis.NewClusterClient(ClusterOptions(client)).
func (c *Cluster) NewClusterClient(client string) (*redis.ClusterClient, error) {
	o, err := c.ClusterOptions(client)
	if err != nil {
		return nil, err
	}
	return redis.NewClusterClient(o), nil
}

// newNodeClient is a cluster client's client of one node, with noResend.
func newNodeClient(o *redis.Options) *redis.Client {
	rc := redis.NewClient(o)
	rc.AddHook(noResend{})
	return rc
}

// ErrNoReply: a command may have reached a node but no reply came back
// (a timeout, a reset or closed connection): its outcome is unknown.
// errors.Is(err, ErrNoReply) tells it; the error deliberately does not
// unwrap to its network cause, because go-redis's cluster client retries
// any error that does, which could apply the command twice or report
// "already set" for a SET that this very command made.
var ErrNoReply = errors.New("rediscluster: no reply, outcome unknown")

// noReplyError is ErrNoReply with its cause's text.
type noReplyError struct{ cause error }

func (e *noReplyError) Error() string        { return ErrNoReply.Error() + ": " + e.cause.Error() }
func (e *noReplyError) Is(target error) bool { return target == ErrNoReply }

// noResend is the hook of every node client of ClusterOptions: it turns a
// network error that may have followed the sending of a command into
// ErrNoReply, which go-redis does not retry.
type noResend struct{}

func (noResend) DialHook(next redis.DialHook) redis.DialHook { return next }

func (noResend) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { return unknownOutcome(next(ctx, cmd)) }
}

func (noResend) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { return unknownOutcome(next(ctx, cmds)) }
}

// unknownOutcome wraps a network error in ErrNoReply, unless it happened
// while dialing (nothing was sent: a retry is safe). Replies (Redis
// errors, redis.Nil) and context errors, which go-redis does not retry,
// pass unchanged.
func unknownOutcome(err error) error {
	if err == nil {
		return nil
	}
	var reply redis.Error
	if errors.As(err, &reply) {
		return err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return err
	}
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) {
		return &noReplyError{err}
	}
	return err
}
