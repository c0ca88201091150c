package lockimpl

// Registry names of the locks.
const (
	nameSingle = "single"
	// nameSingleWait is single with WAIT 1 after each acquire.
	nameSingleWait    = "single-wait"
	nameRenewable     = "renewable"
	nameRedlock       = "redlock"
	nameFair          = "fair"
	nameFairNaive     = "fair-naive"
	nameFenced        = "fenced"
	nameFencedRedlock = "fenced-redlock"
	nameUnsafeDel     = "unsafe-del"
	nameUnsafeGetDel  = "unsafe-getdel"
	nameUnsafeNoTTL   = "unsafe-nottl"
	// nameUnsafeOverclaim counts validity from the acquire's reply.
	nameUnsafeOverclaim = "unsafe-overclaim"
	// nameUnsafeCrossSlot is fenced with its counter in another hash slot.
	nameUnsafeCrossSlot = "unsafe-crossslot"
)
