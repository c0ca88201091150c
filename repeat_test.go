package lockstorm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/checker"
)

// Repeat from Go: two runs, each with its own seed, folder and report;
// the hooks see the base seed first, then each run in order with its
// report written.
func TestRepeat(t *testing.T) {
	var seen []string
	c, err := lockstorm.Repeat(context.Background(), lockstorm.Config{Lock: "single", Clients: 2,
		TTL: 200 * time.Millisecond, TimeLimit: time.Second, Seed: 21, Store: t.TempDir()}, 2, false,
		lockstorm.OnBaseSeed(func(base int64) { seen = append(seen, fmt.Sprint("base ", base)) }),
		lockstorm.OnRun(func(i int, res *lockstorm.Result, reportErr error) {
			seen = append(seen, fmt.Sprint("run ", i, " ", res.Config.Seed, " ", reportErr))
		}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 2 || c.Verdict != checker.Valid || c.Base != 21 {
		t.Fatalf("%d runs, verdict %v, base %d", len(c.Runs), c.Verdict, c.Base)
	}
	a, b := c.Runs[0], c.Runs[1]
	if a.Config.Seed != 21 || b.Config.Seed == 21 || a.Dir == b.Dir {
		t.Errorf("seeds %d, %d; folders %s, %s", a.Config.Seed, b.Config.Seed, a.Dir, b.Dir)
	}
	for _, r := range c.Runs {
		if _, err := os.Stat(filepath.Join(r.Dir, "index.html")); err != nil {
			t.Errorf("%s: no report", r.Dir)
		}
	}
	if want := fmt.Sprintf("[base 21 run 1 21 <nil> run 2 %d <nil>]", c.Runs[1].Config.Seed); fmt.Sprint(seen) != want {
		t.Errorf("hooks saw %v, want %s", seen, want)
	}
}
