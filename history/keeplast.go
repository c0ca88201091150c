package history

// A recorder normally keeps every record in memory, for Recorder.History.
// A long run cannot: at 10k records/s an hour is 36 M records, gigabytes
// of memory. KeepLast bounds the memory to a tail of recent records,
// enough for the live readers (progress, fault targeting) that call Since
// every fraction of a second; the whole history is then only in the file.

// KeepLast makes the recorder keep at least the last n records in memory
// and drop older ones (whole chunks of chunkSize records at a time), so
// its memory stays flat however long the run. n <= 0 keeps every record
// (the default). Call it before recording.
func (r *Recorder) KeepLast(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keep = max(n, 0)
}

// Whole reports whether every record so far is still in memory, so that
// History returns the whole history.
func (r *Recorder) Whole() bool { return locked(&r.mu, func() bool { return r.first == 0 }) }

// dropLocked drops the oldest chunks while the full chunks alone hold at
// least keep records; the last dropped chunk is kept as the spare.
func (r *Recorder) dropLocked() {
	if r.keep == 0 {
		return
	}
	for len(r.chunks) > 0 && len(r.chunks)*chunkSize-chunkSize >= r.keep && len(r.chunks[0]) == chunkSize {
		r.spare = r.chunks[0][:0]
		r.chunks[0] = nil
		r.chunks = r.chunks[1:]
		r.first += chunkSize
	}
}

// newChunk returns an empty chunk, the spare when there is one.
func (r *Recorder) newChunk() History {
	if c := r.spare; c != nil {
		r.spare = nil
		return c
	}
	return make(History, 0, chunkSize)
}
