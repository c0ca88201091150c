package lockimpl_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// HashSlot against values Redis documents (the cluster specification's
// CRC16 check value and examples).
func TestHashSlotKnown(t *testing.T) {
	for key, want := range map[string]int{
		"foo":       12182,
		"123456789": 12739, // CRC16-XMODEM check value 0x31C3
		"":          0,
	} {
		if got := lockimpl.HashSlot(key); got != want {
			t.Errorf("HashSlot(%q) = %d, want %d", key, got, want)
		}
	}
	// Hash tags: only the first non-empty {...} counts.
	same := [][2]string{
		{"{user1000}.following", "{user1000}.followers"},
		{"foo{bar}{zap}", "bar"},
		{"foo{{bar}}zap", "{bar"},
		{"lock:{lockstorm}", "lock:{lockstorm}:fence"},
	}
	for _, p := range same {
		if a, b := lockimpl.HashSlot(p[0]), lockimpl.HashSlot(p[1]); a != b {
			t.Errorf("HashSlot(%q) = %d, HashSlot(%q) = %d, want equal", p[0], a, p[1], b)
		}
	}
	// An empty tag does not count: the whole key is hashed.
	if a, b := lockimpl.HashSlot("foo{}{bar}"), lockimpl.HashSlot("bar"); a == b {
		t.Errorf("HashSlot(foo{}{bar}) = HashSlot(bar) = %d: an empty tag must hash the whole key", a)
	}
}

// HashSlot agrees with a real server's CLUSTER KEYSLOT, tags and edge
// cases included.
func TestHashSlotMatchesRedis(t *testing.T) {
	node := locktest.SharedRedisCluster(t).Node(t, 0)
	keys := []string{"foo", "123456789", "{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}",
		"{", "}", "{}", "a{b", "a}b{c}", "lock:{lockstorm}", "lock:{t1}:queue", "fence_counter:lock:t1", "é{ü}", "\x00\xff"}
	for i := range 200 {
		keys = append(keys, fmt.Sprintf("key-%d", i), fmt.Sprintf("x{%d}y", i*7919))
	}
	for _, k := range keys {
		want, err := node.ClusterKeySlot(context.Background(), k).Result()
		clustertest.Must(t, err)
		if got := lockimpl.HashSlot(k); int64(got) != want {
			t.Errorf("HashSlot(%q) = %d, CLUSTER KEYSLOT = %d", k, got, want)
		}
	}
}

// CheckSlots passes every single-node built-in lock on a hash-tagged key
// and catches unsafe-crossslot, naming both keys and their slots.
func TestCheckSlots(t *testing.T) {
	const key = "lock:{t1}"
	c := locktest.SharedRedisCluster(t).Client(t)
	for _, name := range lockimpl.Names() {
		if !lockimpl.ClusterCapable(name) {
			continue
		}
		l, err := lockimpl.New(name, clients(c), lockimpl.Options{})
		clustertest.Must(t, err)
		if _, ok := l.(lockimpl.KeyLister); !ok {
			t.Errorf("%s does not list its keys", name)
		}
		err = lockimpl.CheckSlots(l, key)
		if name == "unsafe-crossslot" {
			counter := "fence_counter:lock:t1"
			for _, want := range []string{key, fmt.Sprintf("slot %d", lockimpl.HashSlot(key)), counter, fmt.Sprintf("slot %d", lockimpl.HashSlot(counter))} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: CheckSlots = %v, want it to name %q", name, err, want)
				}
			}
			if !errors.Is(err, lockimpl.ErrCrossSlot) {
				t.Errorf("%s: CheckSlots = %v, want ErrCrossSlot", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: CheckSlots(%q) = %v", name, key, err)
		}
	}
	// Without a hash tag the fencing counter lands elsewhere: the tag is
	// what keeps a lock's keys together.
	fenced, _ := lockimpl.New("fenced", clients(c), lockimpl.Options{})
	if lockimpl.HashSlot("lock:t1") != lockimpl.HashSlot("lock:t1:fence") {
		if err := lockimpl.CheckSlots(fenced, "lock:t1"); !errors.Is(err, lockimpl.ErrCrossSlot) {
			t.Errorf("fenced on an untagged key: CheckSlots = %v, want ErrCrossSlot", err)
		}
	}
}

// A lock that needs independent nodes is not cluster-capable; every
// single-node lock is.
func TestClusterCapable(t *testing.T) {
	for _, name := range lockimpl.Names() {
		if got, want := lockimpl.ClusterCapable(name), !lockimpl.MultiNode(name); got != want {
			t.Errorf("ClusterCapable(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"redlock": false, "fenced-redlock": false, "single": true, "fair": true, "no-such-lock": false} {
		if got := lockimpl.ClusterCapable(name); got != want {
			t.Errorf("ClusterCapable(%q) = %v, want %v", name, got, want)
		}
	}
}
