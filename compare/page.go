package compare

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/sweep"
)

var compareTmpl = template.Must(template.New("compare").Funcs(page.Funcs).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>lockstorm compare: fencing off vs on</title><style>` + page.Style + `
.why { border-left: 4px solid #176b2c; background: #f3f9f4; padding: .5em .8em; margin: .6em 0 1em; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 0 1.5em; }
.side > div { display: grid; grid-row: span 8; grid-template-rows: subgrid; align-items: start; }
.side > div > * { margin: 0 0 .6em; } .side > div > h2, .side > div > h3 { margin-top: .8em; } .side > div > table { justify-self: start; }</style></head>
<body>
<h1>Fencing tokens: the same run without and with a fencing resource</h1>
<p class="note">Both runs: lock <code>{{.Spec.Lock}}</code>, counter workload, {{.Spec.Clients}} clients, TTL {{dur .Spec.TTL}}, seed {{.Seed}}, {{dur .Spec.TimeLimit}}.
At {{.PauseTimes}} the client holding the lock is paused for {{dur .Spec.Pause}} (all its links frozen, as in a stop-the-world GC pause).
Its lease expires meanwhile and another client takes the lock; the paused client's write, sent before or during the pause, reaches the resource afterwards.
The only difference between the two runs: on the right the resource rejects a write whose fencing token is lower than one it already accepted.</p>
<p class="{{if .Shows}}pass{{else}}fail{{end}}">{{range .Findings}}{{.}}<br>{{end}}</p>
{{/* The two sides share one grid: each side's eight blocks (verdict,
caption or an empty slot, table, link, two headings and two plots) sit
in the same eight rows, so the fenced side's caption does not push its
plots below the other side's. */}}
<div class="side">
{{range .Sides}}<div>
<h2>{{.Title}}: <span class="{{.M.Verdict}}">{{.M.Verdict}}</span></h2>
{{with .Why}}<p class="why" id="fencing-why">{{.}}</p>{{else}}<div class="why-slot"></div>{{end}}
<table>
<tr><th>lost updates</th><td class="num">{{lost .M.LostUpdates}}</td></tr>
<tr><th>writes acknowledged</th><td class="num">{{.M.Writes}}</td></tr>
<tr><th>stale writes accepted</th><td class="num">{{.M.StaleAccepted}}</td></tr>
<tr><th>stale writes rejected</th><td class="num">{{.M.StaleRejected}}</td></tr>
<tr><th>writes after the writer's validity, accepted</th><td class="num">{{.M.LateWrites}}</td></tr>
<tr><th>the same, accepted in token order, before any newer token reached the resource (harmless)</th><td class="num">{{.M.LateInOrder}}</td></tr>
<tr><th>acquire success</th><td class="num">{{pct .M.SuccessRate}}</td></tr>
<tr><th>client pauses</th><td class="num">{{.M.Faults}}</td></tr>
</table>
<p><a href="{{link .Dir}}">full report</a> — <code>{{.Dir}}</code></p>
<h3>Who held the lock</h3>
{{if .Holders}}<a href="{{plot .Dir $.HoldersFile}}"><img src="{{.Holders}}" alt="holders plot"></a>{{else}}<p class="note">no {{$.HoldersFile}} in the run folder (report not written)</p>{{end}}
<h3>Fencing tokens at the resource</h3>
{{if .Fencing}}<a href="{{plot .Dir $.FencingFile}}"><img src="{{.Fencing}}" alt="fencing plot"></a>{{else}}<p class="note">no {{$.FencingFile}} in the run folder</p>{{end}}
</div>
{{end}}</div>
<p class="note">Click a plot for its full size. Holders plot: one row per client; blue where a client believed it held the lock, orange after its validity had passed, red where two leases were believed held at once; ▲ a write the resource accepted, ✕ one it rejected, each drawn where it reached the resource with a thin line back to its send; a red ring is a lost increment; the pause is shaded on the paused client's row. Fencing plot: the token of each write at the resource; a stale write is drawn large, red ▲ when accepted, green ✕ when rejected, labelled with its token against the one it fell below.</p>
</body></html>
`))

type sideView struct {
	Title string
	// Why explains the side's picture (the fenced side: why its
	// overlaps come with a valid verdict); empty for none.
	Why              string
	Dir              string
	M                sweep.Metrics
	Holders, Fencing template.URL
}

type comparePageData struct {
	*Comparison
	PauseTimes string
	Sides      []sideView
	// HoldersFile and FencingFile are the plots taken from each run
	// folder (written by its report).
	HoldersFile, FencingFile string
}

// comparePage renders the comparison with each run's plots inline.
func comparePage(c *Comparison) ([]byte, error) {
	view := func(title string, s Side) sideView {
		v := sideView{Title: title, Dir: s.Dir, M: s.Metrics}
		dir := filepath.Join(c.Spec.Store, filepath.FromSlash(s.Dir))
		if b, err := os.ReadFile(filepath.Join(dir, store.HoldersFile)); err == nil {
			v.Holders = page.PNG(b)
		}
		if b, err := os.ReadFile(filepath.Join(dir, store.FencingFile)); err == nil {
			v.Fencing = page.PNG(b)
		}
		return v
	}
	fenced := view("With fencing", c.Fenced)
	fenced.Why = fencingWhy(c.Fenced)
	d := comparePageData{Comparison: c, PauseTimes: page.Durs(c.Spec.PauseTimes()), Sides: []sideView{
		view("Without fencing", c.Unfenced), fenced},
		HoldersFile: store.HoldersFile, FencingFile: store.FencingFile}
	var buf bytes.Buffer
	if err := compareTmpl.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fencingWhy is the caption of the fenced side: its holders plot shows
// overlaps (red) beside a valid verdict, because fencing does not prevent
// the overlap; it makes it harmless by rejecting the stale write. The
// numbers are measured: the overlaps from the run's history (as the
// holders plot counts them, when the result is at hand), the stale writes
// from the resource's answers.
func fencingWhy(s Side) string {
	why := "Fencing does not prevent the overlap"
	if s.Result != nil {
		h, err := history.ReadAll(s.Result.History) // a comparison's runs are short
		if n := reports.HeldOverlaps(h); err == nil && n > 0 {
			why += fmt.Sprintf(" (the red in the holders plot: %d %s of leases believed held at once)", n, page.Plural(n, "pair", "pairs"))
		}
	}
	m := s.Metrics
	switch {
	case m.StaleAccepted > 0:
		return why + fmt.Sprintf(", and here it did not make it harmless either: the resource accepted %d stale %s.", m.StaleAccepted, page.Plural(m.StaleAccepted, "write", "writes"))
	case m.StaleRejected > 0:
		return why + fmt.Sprintf(": it makes the overlap harmless, because the stale write is rejected. Here the resource rejected %d stale %s and accepted none.", m.StaleRejected, page.Plural(m.StaleRejected, "write", "writes"))
	}
	return why + ": it makes the overlap harmless, because a stale write is rejected; in this run no stale write reached the resource, so there was none to reject."
}
