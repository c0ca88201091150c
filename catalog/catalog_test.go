package catalog

import (
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Every row is a valid configuration with a valid scripted plan, and the
// quick subset fits the 3-minute budget by its own time limits.
func TestRowsAreWellFormed(t *testing.T) {
	var quick time.Duration
	seen := map[int]bool{}
	for _, r := range Rows() {
		c, err := r.Config.WithDefaults()
		if err != nil {
			t.Errorf("row %d: %v", r.N, err)
			continue
		}
		if c.Plan == nil || c.Plan.Validate(nemesis.New(nemesis.Env{})) != nil {
			t.Errorf("row %d: no valid scripted plan", r.N)
		}
		if len(r.Expect) == 0 {
			t.Errorf("row %d expects nothing", r.N)
		}
		if r.Quick {
			quick += c.TimeLimit
		}
		seen[r.N] = true
	}
	if quick > 150*time.Second {
		t.Errorf("quick rows run %v of workload alone; the budget is 3 minutes", quick)
	}
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19} {
		if !seen[n] {
			t.Errorf("catalogue row %d missing", n)
		}
	}
}

func TestSelect(t *testing.T) {
	rows, err := Select(Options{Only: []int{9, 2}})
	if err != nil || len(rows) != 2 || rows[0].N != 9 || rows[1].N != 2 {
		t.Fatalf("Select(9,2) = %v, %v", rows, err)
	}
	if _, err := Select(Options{Only: []int{99}}); !errors.Is(err, config.ErrConfig) {
		t.Fatalf("unknown row: %v", err)
	}
	all, _ := Select(Options{})
	quick, _ := Select(Options{Quick: true})
	if len(quick) == 0 || len(quick) >= len(all) {
		t.Fatalf("quick %d of %d rows", len(quick), len(all))
	}
}
