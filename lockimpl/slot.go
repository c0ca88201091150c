package lockimpl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ErrCrossSlot: a lock's keys for one lock key fall in different hash
// slots, so a Redis Cluster refuses the lock's multi-key scripts (the
// server's CROSSSLOT reply). CheckSlots returns it before a run; a lock's
// Acquire returns it when the server refused a script with CROSSSLOT
// (then the script did not run: nothing was taken).
var ErrCrossSlot = errors.New("lockimpl: the lock's keys are in different hash slots (a Redis Cluster refuses its scripts with CROSSSLOT)")

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

// KeyLister is offered by locks that can name every Redis key they touch
// for a lock key: the lock key itself and the keys derived from it
// (fencing counter, queue...). Every built-in lock offers it.
type KeyLister interface {
	Keys(key string) []string
}

// HashSlot is the Redis Cluster hash slot of key, as the server computes
// it (CLUSTER KEYSLOT): CRC16-XMODEM of the key modulo 16384, where a key
// holding a non-empty "{...}" hashes only what lies between its first
// '{' and the first '}' after it. "{}" (empty) or an unclosed '{' hash
// the whole key.
func HashSlot(key string) int {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if n := strings.IndexByte(key[open+1:], '}'); n > 0 {
			key = key[open+1 : open+1+n]
		}
	}
	return int(crc16(key) % Slots)
}

// crc16 is CRC16-XMODEM (polynomial 0x1021, initial value 0, no
// reflection), the checksum Redis Cluster hashes keys with.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

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
func isCrossSlot(err error) bool {
	return redis.HasErrorPrefix(err, "CROSSSLOT")
}

// crossSlotError wraps ErrCrossSlot and the server's reply. It wraps
// neither ErrNotObtained nor ErrNotHeld: nothing ran, but the run itself
// is misconfigured and should stop (a history records the op as info).
func crossSlotError(lock, op, key string, cause error) error {
	return fmt.Errorf("%w: %s %s %q: %w", ErrCrossSlot, lock, op, key, cause)
}
