package rediscluster

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstorm/lockstorm/hashslot"
)

// Slots is the number of hash slots of a Redis Cluster.
const Slots = hashslot.Count

// peerLine is one line of CLUSTER NODES: one node as the answering node
// sees it.
type peerLine struct {
	id        string
	addr      string // announced client address, ip:port
	busPort   int    // announced bus port
	flags     []string
	masterID  string // for a replica, its master's id; "" for a master
	epoch     uint64 // config epoch
	connected bool   // link-state connected
	slots     []slotRange
}

// slotRange is an inclusive range of slots a master serves.
type slotRange struct{ from, to int }

// has reports whether the line carries the flag.
func (p peerLine) has(flag string) bool { return slices.Contains(p.flags, flag) }

// isMaster reports whether the line's node is a master in this view.
func (p peerLine) isMaster() bool { return p.has("master") }

// parseNodes parses the output of CLUSTER NODES. Slots being migrated
// ("[slot->-id]", "[slot-<-id]") are left out: they stay with their owner.
func parseNodes(s string) ([]peerLine, error) {
	var out []peerLine
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(l)
		if len(f) < 8 {
			return nil, fmt.Errorf("rediscluster: CLUSTER NODES line %q: too few fields", l)
		}
		p := peerLine{id: f[0], flags: strings.Split(f[2], ","), connected: f[7] == "connected"}
		addr, _, _ := strings.Cut(f[1], ",") // drop a hostname
		ipPort, cport, ok := strings.Cut(addr, "@")
		if !ok {
			return nil, fmt.Errorf("rediscluster: CLUSTER NODES line %q: no bus port", l)
		}
		p.addr = ipPort
		var err error
		if p.busPort, err = strconv.Atoi(cport); err != nil {
			return nil, fmt.Errorf("rediscluster: CLUSTER NODES line %q: %w", l, err)
		}
		if f[3] != "-" {
			p.masterID = f[3]
		}
		if p.epoch, err = strconv.ParseUint(f[6], 10, 64); err != nil {
			return nil, fmt.Errorf("rediscluster: CLUSTER NODES line %q: %w", l, err)
		}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") {
				continue
			}
			sr, err := parseRange(r)
			if err != nil {
				return nil, fmt.Errorf("rediscluster: CLUSTER NODES line %q: %w", l, err)
			}
			p.slots = append(p.slots, sr)
		}
		out = append(out, p)
	}
	return out, nil
}

// parseRange parses "from-to" or "slot".
func parseRange(s string) (slotRange, error) {
	a, b, isRange := strings.Cut(s, "-")
	from, err := strconv.Atoi(a)
	if err != nil {
		return slotRange{}, err
	}
	to := from
	if isRange {
		if to, err = strconv.Atoi(b); err != nil {
			return slotRange{}, err
		}
	}
	if from < 0 || to >= Slots || from > to {
		return slotRange{}, fmt.Errorf("slot range %q out of bounds", s)
	}
	return slotRange{from, to}, nil
}

// hostPort splits an address into host and port strings.
func hostPort(addr string) (string, string) {
	h, p, _ := net.SplitHostPort(addr)
	return h, p
}
