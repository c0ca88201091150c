package nemesis

import (
	"context"
	"math/rand/v2"
)

// ClientCrash makes one client die mid-operation and never come back,
// through the harness's Env.CrashClient hook (see Env for the contract:
// the old process dies without releasing or dequeuing, its connections
// close, a fresh process id takes the slot). This is how a lock without a
// TTL deadlocks and how a fair lock's dead waiter blocks the queue.
//
// Stop does nothing: a crash is not undone; the slot's new process is the
// harness's business. Draw picks a client; the fault's window (Duration,
// 1 TTL) only separates it from the next fault in a schedule.
type ClientCrash struct {
	Env Env
}

// Kind returns "client-crash".
func (*ClientCrash) Kind() string { return KindClientCrash }

// Draw draws a client crash.
func (c *ClientCrash) Draw(r *rand.Rand, t Topology) Fault {
	return Fault{Kind: KindClientCrash, Clients: []string{pick(r, t.Clients)}, Duration: t.ttl()}
}

// Start calls the crash hook, or returns ErrNoHook when there is none.
func (c *ClientCrash) Start(ctx context.Context, f Fault) error {
	cl, err := one(f, f.Clients, "client")
	if err != nil {
		return err
	}
	if c.Env.CrashClient == nil {
		return ErrNoHook
	}
	return c.Env.CrashClient(ctx, cl)
}

// Stop does nothing: a crashed client stays crashed.
func (c *ClientCrash) Stop(ctx context.Context, f Fault) error { return nil }
