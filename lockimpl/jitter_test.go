package lockimpl_test

import (
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Two locks' options built with Jitters of the same seed draw the same
// retry delays; another seed draws others; every delay stays in the upper
// half of its exponential step.
func TestJitterSeeded(t *testing.T) {
	draws := func(seed uint64) []time.Duration {
		o := lockimpl.Options{TTL: time.Second, Jitter: lockimpl.NewJitter(seed)}.WithDefaults(1)
		var out []time.Duration
		for i := range 40 {
			d := o.Backoff(i % 8)
			step := min(o.RetryMin<<(i%8), o.RetryMax)
			if d < step/2 || d > step {
				t.Fatalf("retry %d: delay %v outside [%v, %v]", i%8, d, step/2, step)
			}
			out = append(out, d)
		}
		return out
	}
	a, b, c := draws(7), draws(7), draws(8)
	differ := false
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %v and %v from the same seed", i, a[i], b[i])
		}
		differ = differ || a[i] != c[i]
	}
	if !differ {
		t.Fatal("seeds 7 and 8 drew the same 40 delays")
	}
}

// A lock built without a Jitter gets one from crypto/rand (two such locks
// differ), and a shared Jitter is safe for concurrent draws (run with
// -race).
func TestJitterDefault(t *testing.T) {
	o1, o2 := lockimpl.Options{}.WithDefaults(1), lockimpl.Options{}.WithDefaults(1)
	if o1.Jitter == nil || o1.Jitter == o2.Jitter {
		t.Fatalf("default jitters: %p %p", o1.Jitter, o2.Jitter)
	}
	if again := o1.WithDefaults(1); again.Jitter != o1.Jitter {
		t.Fatal("WithDefaults replaced a Jitter already set")
	}
	same := 0
	for range 20 {
		if o1.Jitter.N(time.Hour) == o2.Jitter.N(time.Hour) {
			same++
		}
	}
	if same == 20 {
		t.Fatal("two crypto-seeded jitters drew the same 20 delays")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				_ = o1.Backoff(i % 5)
			}
		}()
	}
	wg.Wait()
}
