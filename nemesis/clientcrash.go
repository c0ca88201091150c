package nemesis

import (
	"context"
	"math/rand/v2"
	"time"
)

// KindClientCrash is a client that dies mid-operation.
const KindClientCrash = "client-crash"

func init() {
	Register(Spec{
		Kind: KindClientCrash, Order: 40,
		Help:        "a client's process dies without releasing or dequeuing; a fresh process takes its slot",
		Params:      []string{"clients"},
		Colour:      rgb(0xe3, 0x77, 0xc2), // pink
		EndsClients: true,
		New:         func(env Env) Nemesis { return &ClientCrash{Env: env} },
	})
}

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

// Aim aims a client crash at the holder or (every other aimed crash) at a
// waiter in the middle of its acquire: where a lock that sets its TTL in a
// second round trip keeps a key without expiry, and where a fair lock
// leaves a dead waiter in its queue. Alternating, rather than tossing a
// coin, makes any two aimed crashes of a plan hit both.
func (c *ClientCrash) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	if nth%2 == 1 {
		return aimClients(f, AimWaiter, TargetWaiter)
	}
	return aimClients(f, AimHolder, TargetHolder)
}

// MinStep is half a TTL: the crash is instant, its window only spaces it.
func (c *ClientCrash) MinStep(t Topology) time.Duration { return instantStep(t) }
