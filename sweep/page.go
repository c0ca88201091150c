package sweep

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/lockstorm/lockstorm/internal/page"
)

var sweepTmpl = template.Must(template.New("sweep").Funcs(page.Funcs).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>lockstorm sweep {{.Spec.Name}}</title><style>` + page.Style + recommendationStyle + `</style></head>
<body>
<h1>lockstorm sweep “{{.Spec.Name}}”</h1>
<p>{{len .Cells}} of {{count .Total "cell" "cells"}} finished{{if .Interrupted}} — <b>interrupted</b>: rerun the same command to resume{{end}}.
{{if .Elapsed}}This invocation ran {{.Ran}} and resumed {{.Skipped}} in {{secs .Elapsed}}.{{end}}</p>
<p>The recommendation computed from these cells is <a href="#recommendation">at the end of this page</a>.</p>
<p class="note">Grid: TTL {{.TTLs}} × renewal {{.Renews}} × fencing {{.Fencing}} × client pause {{.Pauses}}, {{.Spec.Runs}} run(s) per cell (seeds 1..{{.Spec.Runs}}), {{dur .Spec.TimeLimit}} each.
Every run: the counter workload, {{.Spec.Clients}} clients, holders keep the lock {{dur .Spec.HoldMin}}–{{dur .Spec.HoldMax}} between read and write and
act until their lock tells them it is lost (they ignore their own validity deadline, as code using a watchdog lock usually does).
Lock <code>single</code> where renewal is none, <code>renewable</code> (watchdog) otherwise, without fencing; with fencing on, the <code>fenced</code> lock (no watchdog: one panel, whatever the renewal) against a resource that rejects a write or read whose fencing token is below one it has seen; {{if eq .Spec.Topology "cluster"}}on a 3-master Redis Cluster (key <code>lock:{lockstorm}</code>){{else}}one Redis node{{end}}.
{{if eq .Spec.PauseModel "process"}}Every client is a process (<code>lockstorm client --lock …</code>), and the pause is real (pause model <code>process</code>): the holder's process is stopped with SIGSTOP, its watchdog thread with it, its links frozen and none of its timeouts running, until SIGCONT, as in a stop-the-world GC pause.{{else}}The clients run in process (process clients do not run on a Redis Cluster yet), so a pause freezes the holder's links only (pause model <code>links</code>): its watchdog goroutine keeps running and may warn the holder before the pause ends, which a real stop-the-world pause would not allow. Cells where renewal survives a pause longer than the TTL overstate renewal.{{end}}
Faults: {{if .PauseTimes}}the client holding the lock is paused at {{.PauseTimes}} for the cell's pause length{{else}}none (no pause length above 0){{end}}.</p>

<h2>Violations</h2>
<img src="{{.Violations}}" alt="violations heat map">
<p class="note">Per cell: how many of its runs the checkers found invalid (k/N invalid; green none, red some, dark red all; amber when none was invalid but some were unknown, which counts as neither), then the mean violations per run (lost updates, i.e. acknowledged increments minus the counter's final value, + overlapping holders + stale writes accepted) and the writes accepted after the writer's lease.
Without renewal a TTL shorter than the slowest holder produces violations even without faults; renewal removes those, but a pause longer than the TTL still lets the lease expire while its holder is frozen, and its delayed write lands on someone else's lease. Fencing does not prevent that overlap; it makes it harmless: the resource rejects the delayed write, whose token is older than the new holder's.
A write the resource accepted after its writer's lease had ended (“accepted late”) fails the exclusion checker, so a cell can be invalid with 0 violations, unless fencing made it harmless: the fencing resource accepted it in token order, before any newer holder's token reached it, so no newer holder had read or written yet (“late in order”: reported, not fatal; the same rule as the run's report and the comparison). The fenced lock has no watchdog, so with a TTL shorter than the holders' work its holders write late.
</p>

<h2>Availability</h2>
<img src="{{.Availability}}" alt="availability heat map">
<p class="note">Per cell: completed acquire calls that obtained the lock (acquire timeout max(2×TTL, 2s)).
{{if eq .Spec.PauseModel "process"}}A paused client is a stopped process: it tries nothing during its pause, so its pause costs availability only through the lease it holds until the lease expires.{{else}}A paused client's goroutines keep running: one whose watchdog gave up goes on trying to acquire through its frozen links, and those attempts count as failures here.{{end}}</p>

<h2>By setting</h2>
<table class="points">
<tr><th>ttl</th><th>setting</th><th>pause</th><th>invalid runs</th><th>unknown runs</th><th>violations/run</th><th>acquire success</th></tr>
{{range .Points}}<tr><td>{{dur .TTL}}</td><td>{{.Setting.Name}}</td><td>{{dur .Pause}}</td>
{{if .Ran}}<td class="num {{if .Invalid}}invalid{{else if .Unknown}}unknown{{else}}valid{{end}}">{{.InvalidOf $.Spec.Runs}}</td><td class="num">{{.Unknown}}</td><td class="num">{{printf "%.1f" .Violations}}</td><td class="num">{{pct .SuccessRate}}</td>
{{else}}<td>not run</td><td></td><td></td><td></td>{{end}}</tr>
{{end}}</table>

<h2>Cells</h2>
<table>
<tr><th>ttl</th><th>renew</th><th>fencing</th><th>pause</th><th>run</th><th>verdict</th><th>lost updates</th><th>writes</th><th>overlaps</th><th>late writes</th><th>late in order</th><th>stale accepted</th>
<th>acquire success</th><th>acquire p50</th><th>acquire p99</th><th>acquires/s</th><th>lock losses</th><th>run</th></tr>
{{range .Cells}}<tr><td>{{dur .TTL}}</td><td>{{.Renew}}</td><td>{{if .Fenced}}on{{else}}off{{end}}</td><td>{{dur .Pause}}</td><td class="num">{{.Run}}</td>
<td class="{{.Verdict}}">{{.Verdict}}</td><td class="num">{{lost .LostUpdates}}</td><td class="num">{{.Writes}}</td><td class="num">{{.Overlaps}}</td>
<td class="num">{{.LateWrites}}</td><td class="num">{{.LateInOrder}}</td><td class="num">{{.StaleAccepted}}</td><td class="num">{{pct .SuccessRate}}</td><td class="num">{{ms .WaitP50}}</td>
<td class="num">{{ms .WaitP99}}</td><td class="num">{{printf "%.2f" .Throughput}}</td><td class="num">{{.LockLosses}}</td>
<td>{{if .Dir}}<a href="{{link .Dir}}">report</a>{{end}}{{if .ReportError}} <span class="unknown" title="{{.ReportError}}">(report error)</span>{{end}}</td></tr>
{{end}}</table>
<p class="note">Late writes: writes the resource accepted after the writer's own lease validity had passed (fatal); late in order: such writes a fencing resource accepted in token order before any newer token reached it (harmless). Lock losses: times a holder's watchdog told it the lease was lost.
Also as <a href="table.md">table.md</a> and <a href="table.csv">table.csv</a>; each cell's numbers in <a href="cells/">cells/</a>.</p>

<h2>Recommendation</h2>
<p class="recommendation" id="recommendation">{{.Recommendation.Text}}</p>
<p class="note">Computed from the cells above, not written by hand: a setting bears a pause when it was 0 of {{.Spec.Runs}} invalid, with no unknown or missing run, at that pause and every shorter one; the line names the smallest TTL (then the renewal listed first) that bears the longest pause any unfenced setting bore, then how far the fenced lock went.</p>
</body></html>
`))

// recommendationStyle sets the recommendation line apart: the page's
// answer, read first.
const recommendationStyle = `.recommendation { background: #eef4fb; border: 1px solid #9bb8d8; padding: .6em 1em; font-size: 1.05em; max-width: 75em; }
`

type sweepPage struct {
	*Result
	TTLs, Renews, Fencing, Pauses, PauseTimes string
	Violations, Availability                  template.URL
	Points                                    []PointRow
}

// indexPage renders the sweep's index.html with the heat maps inline.
func indexPage(res *Result, vio, av []byte) ([]byte, error) {
	pg := sweepPage{Result: res, Points: Points(res.Spec.Grid, Aggregate(res.Spec.Grid, res.Cells)), Violations: page.PNG(vio), Availability: page.PNG(av),
		TTLs: page.Durs(res.Spec.Grid.TTLs), Pauses: page.Durs(res.Spec.Grid.Pauses), PauseTimes: page.Durs(res.Spec.PauseTimes())}
	var rs []string
	for _, r := range res.Spec.Grid.Renews {
		rs = append(rs, r.Spec)
	}
	pg.Renews = strings.Join(rs, ", ")
	var fs []string
	for _, f := range res.Spec.Grid.Fencing {
		fs = append(fs, onOff(f))
	}
	pg.Fencing = strings.Join(fs, ", ")
	var buf bytes.Buffer
	if err := sweepTmpl.Execute(&buf, pg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
