package cluster

import (
	"fmt"
	"time"
)

// toxicPair names the two toxics of one link fault, one per direction.
// Each fault has its own names, so faults on one link compose: a link can
// be cut, delayed and frozen at once, and each is removed alone.
type toxicPair struct{ up, down string }

// The toxic pairs of the link faults.
var (
	cutToxics     = toxicPair{"lockstorm-cut-up", "lockstorm-cut-down"}
	latencyToxics = toxicPair{"lockstorm-latency-up", "lockstorm-latency-down"}
	freezeToxics  = toxicPair{"lockstorm-freeze-up", "lockstorm-freeze-down"}
)

// toxicSpec is a toxic's toxiproxy type and attributes.
type toxicSpec struct {
	typ   string
	attrs map[string]any
}

// cutSpec drops every byte: toxiproxy's timeout toxic with timeout 0
// keeps connections open while requests and replies vanish.
var cutSpec = toxicSpec{typ: "timeout", attrs: map[string]any{"timeout": 0}}

// toxicProxy is one toxiproxy proxy as the link engine drives it: in this
// process (localProxy) or on a server reached over HTTP (remoteProxy).
type toxicProxy interface {
	// listen is the address the proxy listens on.
	listen() string
	// has reports whether a toxic of that name is on the proxy.
	has(name string) (bool, error)
	// count is the number of toxics on the proxy, whatever added them.
	count() (int, error)
	// add adds a toxic on stream ("upstream" or "downstream").
	add(name, stream string, t toxicSpec) error
	// remove removes a toxic; an absent one is ignored.
	remove(name string)
	// clear removes every toxic left on the proxy.
	clear() error
}

// ensurePair adds the pair's toxics that are missing, leaving present ones
// alone: repeating a cut or a freeze must not release or reset anything.
// If the downstream toxic cannot be added, the upstream one this call
// added is removed, so that the link is never left half faulty.
func ensurePair(px toxicProxy, p toxicPair, t toxicSpec) error {
	addedUp := false
	for _, side := range []struct{ name, stream string }{{p.up, "upstream"}, {p.down, "downstream"}} {
		have, err := px.has(side.name)
		if err != nil {
			return err
		}
		if have {
			continue
		}
		if err := px.add(side.name, side.stream, t); err != nil {
			if addedUp {
				px.remove(p.up)
			}
			return err
		}
		addedUp = side.name == p.up
	}
	return nil
}

// removePair removes both toxics of a pair.
func removePair(px toxicProxy, p toxicPair) {
	px.remove(p.up)
	px.remove(p.down)
}

// checkLatency validates a latency and fills in the default stream.
func checkLatency(l Latency) (Latency, error) {
	if l.Delay < 0 || l.Jitter < 0 {
		return l, fmt.Errorf("cluster: latency delay and jitter must not be negative, got %v±%v", l.Delay, l.Jitter)
	}
	switch l.Stream {
	case "":
		l.Stream = Both
	case Upstream, Downstream, Both:
	default:
		return l, fmt.Errorf("cluster: latency stream must be upstream, downstream or both, got %q", l.Stream)
	}
	return l, nil
}

// setLatency replaces the proxy's latency by l (already checked) on
// l.Stream, at toxiproxy's resolution of a millisecond.
func setLatency(px toxicProxy, l Latency) error {
	removePair(px, latencyToxics)
	t := toxicSpec{typ: "latency", attrs: map[string]any{"latency": l.Delay.Milliseconds(), "jitter": l.Jitter.Milliseconds()}}
	if l.Stream != Downstream {
		if err := px.add(latencyToxics.up, "upstream", t); err != nil {
			return err
		}
	}
	if l.Stream != Upstream {
		if err := px.add(latencyToxics.down, "downstream", t); err != nil {
			px.remove(latencyToxics.up)
			return err
		}
	}
	return nil
}

// healProxy removes every fault from a proxy: the freeze first (so held
// data is delivered), then latency, then the cut, then any other toxic.
func healProxy(px toxicProxy) error {
	removePair(px, freezeToxics)
	removePair(px, latencyToxics)
	removePair(px, cutToxics)
	return px.clear()
}

// freezeDelay is the latency of the toxics that emulate a freeze on a
// toxiproxy server without lockstorm's hold toxic: a day, so that a frozen
// link delivers nothing for the life of a run.
const freezeDelay = 24 * time.Hour
