package reports

import (
	"fmt"
	"html/template"
	"net/http"
	"path/filepath"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/internal/page"
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
	t := storeIndex
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
		if err := t.Execute(w, page); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	return mux
}
