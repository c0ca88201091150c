package nemesis

import (
	"math/rand/v2"
	"time"
)

// This file holds each kind's Aim (Targeter) and MinStep (MinStepper):
// how a drawn fault becomes a targeted one, and the shortest step a
// schedule may give it. Aimed faults name placeholders that the harness
// resolves when the fault starts, timed against the lease: right after
// the holder acquired, or while a waiter is in its acquire.

// aimClients retargets f at one client placeholder.
func aimClients(f Fault, aim, placeholder string) Fault {
	f.Target, f.Clients, f.Links = aim, []string{placeholder}, nil
	return f
}

// aimLease retargets f at the nodes that granted the holder's lease.
func aimLease(f Fault) Fault {
	f.Target, f.Nodes, f.Links = AimLease, []string{TargetLease}, nil
	return f
}

// Aim aims a pause at the holder (four times in five), right after it
// acquired, for 1.2 to 3 TTLs so that the lease expires while it is
// paused in its critical section; or at a waiter, mid-acquire.
func (p *ClientPause) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	if nth%5 == 4 {
		return aimClients(f, AimWaiter, TargetWaiter)
	}
	f = aimClients(f, AimHolder, TargetHolder)
	f.Duration = scaled(r, t.ttl(), 1.2, 3)
	return f
}

// MinStep is the shortest pause drawn (MinTTLs, default 0.5 TTL).
func (p *ClientPause) MinStep(t Topology) time.Duration {
	return ttls(t, orDefault(p.MinTTLs, p.MaxTTLs, 0.5))
}

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
func (c *ClientCrash) MinStep(t Topology) time.Duration { return ttls(t, 0.5) }

// Aim cuts the holder (four times in five) or a waiter, for 1 to 3 TTLs:
// the holder from a seeded majority of the nodes (n/2+1), so it can
// neither renew nor release, or (one time in three, when the resource is
// behind the links) from the resource; a waiter from a majority, mid-
// acquire.
func (p *Partition) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	aim, ph := AimHolder, TargetHolder
	if nth%5 == 4 {
		aim, ph = AimWaiter, TargetWaiter
	}
	f = aimClients(f, aim, ph)
	f.Shape = ShapeClientFromK
	if aim == AimHolder && t.Resource != "" && r.IntN(3) == 0 {
		f.Shape = ShapeClientFromResource
		f.Nodes = []string{t.Resource}
	} else {
		f.Nodes = sample(r, t.Nodes, len(t.Nodes)/2+1)
	}
	f.Duration = scaled(r, t.ttl(), 1, 3)
	return f
}

// ShapeClientFromResource cuts one client from the protected resource
// (a targeted partition only).
const ShapeClientFromResource = "client-from-resource"

// MinStep is the shortest partition drawn (MinTTLs, default 0.5 TTL).
func (p *Partition) MinStep(t Topology) time.Duration {
	return ttls(t, orDefault(p.MinTTLs, p.MaxTTLs, 0.5))
}

// Aim slows every link from the holder to the nodes (three times in
// four), right after it acquired, by 0.2 to 0.45 node timeouts each way
// (a round trip stays below the timeout: the commands succeed, late), so that its
// release (and a two-step release's second step) straddles its expiry; or
// a waiter's links, late in its acquire, so that its reply comes back
// after much of the lease is gone. The resource link is left alone.
func (l *Latency) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	if nth%4 == 3 {
		f = aimClients(f, AimWaiter, TargetWaiter)
	} else {
		f = aimClients(f, AimHolder, TargetHolder)
	}
	f.Shape = LatencyLink
	f.Nodes = append([]string(nil), t.Nodes...)
	f.Delay = scaled(r, t.nodeTimeout(), 0.2, 0.45)
	f.Jitter = uniform(r, 0, f.Delay/10).Round(time.Millisecond)
	f.Stream = ""
	f.Duration = scaled(r, t.ttl(), 1, 3)
	return f
}

// MinStep is the shortest latency fault drawn (half a TTL).
func (l *Latency) MinStep(t Topology) time.Duration { return ttls(t, 0.5) }

// Aim pauses the nodes that granted the holder's lease, enough of them to
// break its quorum, soon after it was granted.
func (p *ServerPause) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	return aimLease(f)
}

// MinStep is the shortest pause drawn (MinTTLs, default 0.5 TTL).
func (p *ServerPause) MinStep(t Topology) time.Duration {
	return ttls(t, orDefault(p.MinTTLs, p.MaxTTLs, 0.5))
}

// Aim crashes the nodes that granted the holder's lease, enough of them
// to break its quorum, soon after it was granted, and restarts them
// within a tenth of a TTL (the shortest restart delay the nemesis allows
// at least): a holder keeps the lock for a fraction of its TTL, and the
// nodes must come back (empty without persistence) while it still holds.
func (c *Crash) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f = aimLease(f)
	lo := ttls(t, orDefault(c.MinTTLs, c.MaxTTLs, 0))
	f.RestartDelay = uniform(r, lo, max(lo, t.ttl()/10)).Round(time.Millisecond)
	return f
}

// MinStep is the shortest restart delay drawn (MinTTLs, default 0) plus
// the half TTL a crash stays in the plan after its restart.
func (c *Crash) MinStep(t Topology) time.Duration {
	return ttls(t, orDefault(c.MinTTLs, c.MaxTTLs, 0)+0.5)
}

// Aim jumps the clocks of the nodes that granted the holder's lease,
// enough of them to break its quorum, forward (the lease expires there at
// once), soon after it was granted.
func (c *ClockJump) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f = aimLease(f)
	if f.JumpBy < 0 {
		f.JumpBy = -f.JumpBy
	}
	return f
}

// MinStep is half a TTL: the jump is instant, its window only spaces it.
func (c *ClockJump) MinStep(t Topology) time.Duration { return ttls(t, 0.5) }

// Aim times a failover right after a lease was granted, before the key
// is replicated; its target stays the primary.
func (n *Failover) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f.Target = AimLease
	return f
}

// MinStep is FailoverBusy plus the shortest time the failover stays in
// effect (MinTTLs, default 2 TTLs).
func (n *Failover) MinStep(t Topology) time.Duration {
	return FailoverBusy + ttls(t, orDefault(n.MinTTLs, n.MaxTTLs, 2))
}

var (
	_ Targeter   = (*ClientPause)(nil)
	_ Targeter   = (*ClientCrash)(nil)
	_ Targeter   = (*Partition)(nil)
	_ Targeter   = (*Latency)(nil)
	_ Targeter   = (*ServerPause)(nil)
	_ Targeter   = (*Crash)(nil)
	_ Targeter   = (*ClockJump)(nil)
	_ Targeter   = (*Failover)(nil)
	_ MinStepper = (*Failover)(nil)
)
