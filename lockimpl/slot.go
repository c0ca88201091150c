package lockimpl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/hashslot"
)

// ErrCrossSlot: a lock's keys for one lock key fall in different hash
// slots, so a Redis Cluster refuses the lock's multi-key scripts (the
// server's CROSSSLOT reply). CheckSlots returns it before a run; a lock's
// Acquire returns it when the server refused a script with CROSSSLOT
// (then the script did not run: nothing was taken).
var ErrCrossSlot = errors.New("lockimpl: the lock's keys are in different hash slots (a Redis Cluster refuses its scripts with CROSSSLOT)")

// Slots is the number of hash slots of a Redis Cluster.
const Slots = hashslot.Count

// KeyLister is offered by locks that can name every Redis key they touch
// for a lock key: the lock key itself and the keys derived from it
// (fencing counter, queue...). Every built-in lock offers it.
type KeyLister interface {
	Keys(key string) []string
}

// HashSlot is the Redis Cluster hash slot of key (hashslot.Of): keys
// sharing a "{...}" tag share a slot.
func HashSlot(key string) int { return hashslot.Of(key) }

// CheckSlots reports, before a cluster run, whether every key l touches
// for key lies in one hash slot. When they do not, the error wraps
// ErrCrossSlot and names each key with its slot. A lock that does not
// offer KeyLister is taken to touch key only (then it passes).
func CheckSlots(l Locker, key string) error {
	keys := []string{key}
	if kl, ok := l.(KeyLister); ok {
		keys = kl.Keys(key)
	}
	if len(keys) == 0 {
		return nil
	}
	first := HashSlot(keys[0])
	same := true
	parts := make([]string, len(keys))
	for i, k := range keys {
		s := HashSlot(k)
		same = same && s == first
		parts[i] = fmt.Sprintf("%q (slot %d)", k, s)
	}
	if same {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrCrossSlot, strings.Join(parts, ", "))
}

// isCrossSlot reports whether err is a server's CROSSSLOT reply: the
// command named keys in different slots and was refused before it ran.
// A nil err returns at once: HasErrorPrefix allocates even for nil, and
// every acquire attempt asks.
func isCrossSlot(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "CROSSSLOT")
}

// crossSlotError wraps ErrCrossSlot and the server's reply. It wraps
// neither ErrNotObtained nor ErrNotHeld: nothing ran, but the run itself
// is misconfigured and should stop (a history records the op as info).
func crossSlotError(lock, op, key string, cause error) error {
	return fmt.Errorf("%w: %s %s %q: %w", ErrCrossSlot, lock, op, key, cause)
}
