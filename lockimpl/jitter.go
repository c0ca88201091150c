package lockimpl

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"
)

// Jitter is the random source of a lock's retry delays (the jitter in
// Options.Backoff). It is safe for concurrent use: one lock, and every
// goroutine acquiring through it, may share one. Two Jitters built with
// the same seed draw the same sequence.
type Jitter struct {
	mu sync.Mutex
	r  *rand.Rand
}

// jitterStream is the PCG stream of every Jitter: the seed alone picks
// the sequence.
const jitterStream = 0x6a69747465720a // "jitter"

// NewJitter returns a source of retry jitter seeded with seed.
func NewJitter(seed uint64) *Jitter {
	return &Jitter{r: rand.New(rand.NewPCG(seed, jitterStream))}
}

// newRandomJitter is the default source of a lock built without one:
// seeded from crypto/rand, so two such locks do not retry in lock step.
func newRandomJitter() *Jitter {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return NewJitter(binary.LittleEndian.Uint64(b[:]))
}

// N returns a duration drawn uniformly from [0, d]; 0 when d <= 0.
func (j *Jitter) N(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return time.Duration(j.r.Int64N(int64(d) + 1))
}
