package rediscluster

import "github.com/lockstorm/lockstorm/hashslot"

// SlotOf is the hash slot of a key (hashslot.Of): keys sharing a "{...}"
// tag share a slot.
func SlotOf(key string) int { return hashslot.Of(key) }
