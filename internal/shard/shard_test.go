package shard

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Shard{"": {}, "0/1": {0, 1}, "0/2": {0, 2}, " 3/4 ": {3, 4}} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"2/2", "-1/2", "1/0", "1", "a/b", "1/2/3", "0/100000"} {
		if _, err := Parse(in); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) err = %v, want a one-line error", in, err)
		}
	}
	if _, err := Parse("2/2"); !strings.Contains(err.Error(), "counts from 0") {
		t.Errorf("K = N error does not say K counts from 0: %v", err)
	}
}

// TestUnionIsWhole checks that the shards partition the items.
func TestUnionIsWhole(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for total := 0; total <= 12; total++ {
			owners := make([]int, total)
			sum := 0
			for k := 0; k < n; k++ {
				s := Shard{k, n}
				sum += s.Count(total)
				for i := 0; i < total; i++ {
					if s.Owns(i) {
						owners[i]++
					}
				}
			}
			for i, o := range owners {
				if o != 1 {
					t.Fatalf("n=%d total=%d: item %d owned by %d shards", n, total, i, o)
				}
			}
			if sum != total {
				t.Fatalf("n=%d total=%d: counts sum to %d", n, total, sum)
			}
		}
	}
}

func manifest(k, n int, root string, seed int, items ...int) *Manifest {
	m := &Manifest{Kind: KindCatalog, K: k, N: n, Total: 5, Root: root}
	_ = m.SetKey(map[string]int{"seed": seed})
	for _, i := range items {
		_ = m.Add(i, "", nil)
	}
	return m
}

func TestCombine(t *testing.T) {
	w, err := Combine([]*Manifest{manifest(1, 2, "b", 1, 1, 3), manifest(0, 2, "a", 1, 0, 2, 4)})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Complete() || len(w.Items) != 5 || w.Roots[1] != "b" || w.Items[4].Index != 4 {
		t.Fatalf("combined %+v", w)
	}
	for name, c := range map[string]struct {
		ms   []*Manifest
		want string
	}{
		"missing":  {[]*Manifest{manifest(0, 3, "a", 1, 0, 3)}, "shard 1/3, 2/3 missing"},
		"twice":    {[]*Manifest{manifest(0, 2, "a", 1), manifest(0, 2, "b", 1), manifest(1, 2, "c", 1)}, "shard 0/2 is given twice (a and b)"},
		"settings": {[]*Manifest{manifest(0, 2, "a", 1), manifest(1, 2, "b", 2)}, "different settings (seed 1 and 2)"},
		"split":    {[]*Manifest{manifest(0, 2, "a", 1), manifest(1, 3, "b", 1)}, "split the work differently"},
		"foreign":  {[]*Manifest{manifest(0, 2, "a", 1, 1), manifest(1, 2, "b", 1)}, "lists item 1, which is not its share"},
		"none":     {nil, "no shard manifest"},
	} {
		_, err := Combine(c.ms)
		if err == nil || !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line with %q", name, err, c.want)
		}
	}
}

func TestWriteRead(t *testing.T) {
	root := t.TempDir()
	m := manifest(1, 2, "", 7, 1)
	m.Kind, m.Name = KindSweep, "tiny"
	if _, err := Write(root, m); err != nil {
		t.Fatal(err)
	}
	ms, err := Read(root)
	if err != nil || len(ms) != 1 || ms[0].FileName() != "sweep-tiny-1-of-2.json" || ms[0].Root != root || !ms[0].SameKey(m) {
		t.Fatalf("read %v, %v", ms, err)
	}
}
