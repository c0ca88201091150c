package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
)

func init() {
	Register(Spec{Kind: KindClientCrash, Order: 40, Params: []string{"clients"}, EndsClients: true,
		Colour: rgb(0xe3, 0x77, 0xc2), New: func(env Env) Nemesis { return &ClientCrash{Env: env} }})
}

// KindClientCrash is a client that dies mid-operation.
const KindClientCrash = "client-crash"

// ErrNoHook means the harness gave no Env.CrashClient hook.
var ErrNoHook = errors.New("nemesis: no hook for this fault")

// ClientCrash makes one client die mid-operation and never come back,
// through the harness's Env.CrashClient hook (see Env for the contract:
// the old process dies without releasing or dequeuing, its connections
// close, a fresh process id takes the slot). This is how a lock without a
// TTL deadlocks and how a fair lock's dead waiter blocks the queue.
//
// Stop does nothing: a crash is not undone; the slot's new process is the
// harness's business. Draw picks a client; the fault's window (Duration,
// 1 TTL) only separates it from the next fault in a schedule, and its
// shortest step is the default half TTL.
type ClientCrash struct {
	Env Env
	permanent
}

// Draw draws a client crash.
func (c *ClientCrash) Draw(r *rand.Rand, t Topology) Fault {
	return Fault{Kind: KindClientCrash, Clients: []string{pick(r, t.Clients)}, Duration: t.ttl()}
}

// Start calls the crash hook on each of the fault's clients (a drawn
// crash names one; a waiter crash timed to the lock key without expiry
// names every client inside acquire at that moment), or returns
// ErrNoHook when there is none.
func (c *ClientCrash) Start(ctx context.Context, f Fault) error {
	if c.Env.CrashClient == nil {
		return ErrNoHook
	}
	if len(f.Clients) == 0 {
		return fmt.Errorf("%w: %s needs at least one client", ErrBadFault, f.Kind)
	}
	for _, cl := range f.Clients {
		if err := c.Env.CrashClient(ctx, cl); err != nil {
			return err
		}
	}
	return nil
}

// Aim aims a client crash at the holder or (every other aimed crash) at a
// waiter in the middle of its acquire: where a lock that sets its TTL in a
// second round trip keeps a key without expiry, and where a fair lock
// leaves a dead waiter in its queue. Alternating, rather than tossing a
// coin, makes any two aimed crashes of a plan hit both. A crash aimed at
// the holder also takes the client that has waited longest in acquire,
// when one does: a fair lock's queue then has a dead waiter at its head
// once the dead holder's lease runs out, from the first aimed crash on.
func (c *ClientCrash) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	if nth%2 == 1 {
		return aimClients(f, AimWaiter, TargetWaiter)
	}
	f = aimClients(f, AimHolder, TargetHolder)
	f.Clients = append(f.Clients, TargetWaiter)
	return f
}
