package reports

import (
	"fmt"
	"html/template"
	"net/http"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
)

// storeIndex is the page listing a store's runs.
var storeIndex = template.Must(template.New("runs").Funcs(template.FuncMap{"verdictText": verdictText, "verdictClass": verdictClass, "count": page.Count[int]}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>lockstorm runs</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}
.valid{color:#1a7f37;font-weight:bold}.invalid{color:#cf222e;font-weight:bold}.unknown{color:#9a6700;font-weight:bold}
</style></head><body>
<h1>lockstorm runs</h1>
{{with .Pages}}<h2>Sweeps and comparisons</h2>
<table><tr><th>page</th><th>kind</th><th>verdict</th></tr>
{{range .}}<tr><td><a href="/runs/{{.Path}}/index.html">{{.Path}}</a></td><td>{{.Kind}}</td><td class="{{.Class}}">{{.Verdict}}</td></tr>
{{end}}</table>{{end}}
<h2>Runs</h2>
<p>{{count (len .Runs) "run" "runs"}} in this store, newest first.</p>
<table><tr><th>started</th><th>test</th><th>verdict</th><th>lock</th><th>workload</th><th>faults</th><th>seed</th><th>files</th></tr>
{{range .Runs}}<tr>
<td>{{.Started.Format "2006-01-02 15:04:05"}}</td><td>{{.Test}}</td>
<td class="{{verdictClass .}}"{{if .Unknown}} title="{{.Error}}"{{end}}>{{verdictText .}}</td>
<td>{{.Config.Lock}}</td><td>{{.Config.Workload}}</td><td>{{range $i, $f := .Config.Nemesis}}{{if $i}}, {{end}}{{$f}}{{else}}{{if .Config.Plan}}scripted{{else}}none{{end}}{{end}}</td>
<td>{{.Config.Seed}}</td>
<td>{{if .SetupError}}<span title="{{.SetupError}}">no report</span>{{else}}<a href="/runs/{{.Dir}}/index.html">report</a>{{end}} · <a href="/runs/{{.Dir}}/">files</a></td>
</tr>{{end}}
</table></body></html>
`))

// verdictText is a run's verdict column: its verdict and, for an unknown
// one, why (analysis.RunInfo.Unknown); "setup failed" or "not checked".
func verdictText(r analysis.RunInfo) string {
	if r.SetupError != "" {
		return "setup failed"
	}
	if !r.Checked {
		return "not checked"
	}
	if r.Unknown != "" {
		return verdictWord(r.Verdict) + " — " + r.Unknown
	}
	return verdictWord(r.Verdict)
}

func verdictClass(r analysis.RunInfo) string {
	if !r.Checked {
		return "unknown"
	}
	return r.Verdict.String()
}

// StoreHandler serves a store: "/" lists the runs with their verdicts,
// newest first; "/runs/..." serves each run's files.
func StoreHandler(root string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/runs/", http.StripPrefix("/runs/", http.FileServer(http.Dir(filepath.Clean(root)))))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		runs, err := analysis.ListRuns(root)
		if err != nil {
			http.Error(w, fmt.Sprintf("store %s: %v", root, err), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page := struct {
			Runs  []analysis.RunInfo
			Pages []pageInfo
		}{runs, comparisonPages(root)}
		if err := storeIndex.Execute(w, page); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	return mux
}

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

// sweepCellsDir is sweep.CellsDir (sweep imports reports).
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

// sweepVerdict counts a sweep's finished runs' verdicts ("3/12 invalid,
// 1 unknown"), its class their merged verdict.
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
// with both sides' verdicts.
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
