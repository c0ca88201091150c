package reports

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
)

// CompareVerdictFile is the file in a comparison's folder that records its
// outcome (CompareVerdict), for `serve`'s listing.
const CompareVerdictFile = "compare.json"

// CompareVerdict is a comparison's outcome: whether it shows what fencing
// changes, and each side's verdict.
type CompareVerdict struct {
	Shows    bool             `json:"shows"`
	Unfenced checker.Validity `json:"unfenced"`
	Fenced   checker.Validity `json:"fenced"`
}

// sweepCellsDir is the folder of a sweep's finished cells, one JSON file
// each with the run's "verdict" (sweep.CellsDir; reports cannot import
// sweep, which imports reports).
const sweepCellsDir = "cells"

// pageInfo is one sweep or comparison in the store listing.
type pageInfo struct {
	// Path is the folder relative to the store root; Kind "sweep" or
	// "compare".
	Path, Kind string
	// Verdict is the column's text and Class its colour: valid, invalid
	// or unknown.
	Verdict, Class string
}

// comparisonPages lists the sweep and compare pages of a store, newest
// first within each kind, with their verdicts.
func comparisonPages(root string) []pageInfo {
	var out []pageInfo
	for _, k := range []struct {
		folder, kind string
		verdict      func(dir string) (string, string)
	}{{store.SweepsFolder, "sweep", sweepVerdict}, {store.CompareFolder, "compare", compareVerdict}} {
		m, _ := filepath.Glob(filepath.Join(root, k.folder, "*", store.IndexFile))
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, p := range m {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				continue
			}
			text, class := k.verdict(filepath.Dir(p))
			out = append(out, pageInfo{Path: filepath.ToSlash(rel), Kind: k.kind, Verdict: text, Class: class})
		}
	}
	return out
}

// sweepVerdict counts the verdicts of a sweep's finished runs: "3/12
// invalid, 1 unknown"; its class is the runs' merged verdict. A sweep
// with no finished cell is "no runs".
func sweepVerdict(dir string) (text, class string) {
	files, _ := filepath.Glob(filepath.Join(dir, sweepCellsDir, "*.json"))
	n, count := 0, map[checker.Validity]int{}
	for _, f := range files {
		var c struct {
			Verdict checker.Validity `json:"verdict"`
		}
		if store.ReadJSON(f, &c) != nil {
			continue
		}
		n++
		count[c.Verdict]++
	}
	if n == 0 {
		return "no runs", "unknown"
	}
	parts := []string{fmt.Sprintf("%d/%d invalid", count[checker.Invalid], n)}
	if u := count[checker.Unknown]; u > 0 {
		parts = append(parts, fmt.Sprintf("%d unknown", u))
	}
	merged := checker.Valid
	for v := range count {
		merged = checker.Merge(merged, v)
	}
	return strings.Join(parts, ", "), merged.String()
}

// compareVerdict is whether a comparison showed what fencing changes,
// with both sides' verdicts; "not recorded" for a comparison written
// before CompareVerdictFile existed.
func compareVerdict(dir string) (text, class string) {
	var v CompareVerdict
	if store.ReadJSON(filepath.Join(dir, CompareVerdictFile), &v) != nil {
		return "not recorded", "unknown"
	}
	sides := fmt.Sprintf(" (without fencing %s, with fencing %s)", verdictWord(v.Unfenced), verdictWord(v.Fenced))
	if v.Shows {
		return "shows it" + sides, "valid"
	}
	return "does NOT show it" + sides, "invalid"
}
