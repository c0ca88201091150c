package history

// KeepLast makes the recorder keep at least the last n records in memory
// and drop older ones (whole chunks at a time; the file keeps every one),
// so its memory stays flat however long the run. n <= 0 keeps every
// record (the default). Call it before recording.
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
