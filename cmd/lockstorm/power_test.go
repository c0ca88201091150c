package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lockstorm power: bad flags exit 2 with one line, before anything runs;
// --from-store on a store without runs prints the table and writes its
// files into that store.
func TestPowerFlags(t *testing.T) {
	bin := binary(t)
	store := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"power", "--only", "unsafe-del,nope", "--store", store}, `--only takes names among`},
		{[]string{"power", "--seeds", "0", "--store", store}, "--seeds must be at least 1"},
		{[]string{"power", "--seeds", "x", "--store", store}, "--seeds"},
		{[]string{"power", "--parallel", "-1", "--store", store}, "--parallel must be at least 1"},
		{[]string{"power", "--time-limit", "0s", "--store", store}, "--time-limit must be a positive duration"},
		{[]string{"power", "--time-limit", "soon", "--store", store}, "--time-limit"},
		{[]string{"power", "--from-store", filepath.Join(store, "missing")}, "--from-store"},
		{[]string{"power", "extra"}, "unknown command"},
	} {
		code, stdout, stderr := exec1(t, bin, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: printed %q", tc.args, stdout)
		}
	}
	if entries, _ := os.ReadDir(store); len(entries) != 0 {
		t.Errorf("bad input left %d entries in the store", len(entries))
	}

	code, stdout, stderr := exec1(t, bin, "power", "--from-store", store, "--only", "unsafe-del,redislock")
	if code != exitValid || !strings.Contains(stdout, "unsafe-del") || !strings.Contains(stdout, "MISS (no runs)") {
		t.Errorf("--from-store of an empty store: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"power.json", "power.md"} {
		if _, err := os.Stat(filepath.Join(store, f)); err != nil {
			t.Errorf("--from-store wrote no %s into the store: %v", f, err)
		}
	}
}
