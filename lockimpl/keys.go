package lockimpl

// The Redis keys each built-in lock touches for a lock key (KeyLister), in
// one place. Every derived key appends a suffix to the lock key, so a
// hash-tagged lock key ("lock:{lockstorm}") keeps them all in its slot;
// only unsafe-crossslot breaks that on purpose.

var (
	_ KeyLister = (*Single)(nil)
	_ KeyLister = (*SingleWait)(nil)
	_ KeyLister = (*Renewable)(nil)
	_ KeyLister = (*Fenced)(nil)
	_ KeyLister = (*Fair)(nil)
	_ KeyLister = (*FairNaive)(nil)
	_ KeyLister = (*Redlock)(nil)
	_ KeyLister = (*UnsafeDel)(nil)
	_ KeyLister = (*UnsafeGetDel)(nil)
	_ KeyLister = (*UnsafeNoTTL)(nil)
	_ KeyLister = (*UnsafeCrossSlot)(nil)
	_ KeyLister = (*UnsafeOverclaim)(nil)
)

// Keys is the lock key alone.
func (s *Single) Keys(key string) []string { return []string{key} }

// Keys is the lock key alone (the watchdog extends that key).
func (r *Renewable) Keys(key string) []string { return []string{key} }

// Keys are the lock key and its fencing counter, key + ":fence".
func (f *Fenced) Keys(key string) []string { return []string{key, fenceKey(key)} }

// Keys are the lock key, the queue (key + ":queue"), the waiters'
// heartbeats (key + ":hb") and the arrival counter (key + ":seq").
func (f *Fair) Keys(key string) []string {
	return []string{key, queueKey(key), heartbeatKey(key), arrivalKey(key)}
}

// Keys are the lock key, the queue (key + ":queue") and the arrival
// counter (key + ":seq"); fair-naive keeps no heartbeats.
func (f *FairNaive) Keys(key string) []string {
	return []string{key, queueKey(key), arrivalKey(key)}
}

// Keys are, on every node, the lock key and, when fenced, its fencing
// counter key + ":fence".
func (r *Redlock) Keys(key string) []string {
	if r.fenced {
		return []string{key, fenceKey(key)}
	}
	return []string{key}
}

// Keys is the lock key alone.
func (u *UnsafeDel) Keys(key string) []string { return []string{key} }

// Keys is the lock key alone.
func (u *UnsafeGetDel) Keys(key string) []string { return []string{key} }

// Keys is the lock's key alone.
func (u *UnsafeOverclaim) Keys(key string) []string { return []string{key} }

// Keys is the lock key alone.
func (u *UnsafeNoTTL) Keys(key string) []string { return []string{key} }

// Keys are the lock key and the fencing counter in another slot,
// "fence_counter:" + the key without braces.
func (u *UnsafeCrossSlot) Keys(key string) []string {
	return []string{key, crossSlotFenceKey(key)}
}
