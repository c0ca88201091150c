package sweep

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/lockstorm/lockstorm/internal/page"
)

var sweepTmpl = template.Must(template.New("sweep").Funcs(page.Funcs).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>lockstorm sweep {{.Spec.Name}}</title><style>` + page.Style + `</style></head>
<body>
<h1>lockstorm sweep “{{.Spec.Name}}”</h1>
<p>{{len .Cells}} of {{.Total}} cells finished{{if .Interrupted}} — <b>interrupted</b>: rerun the same command to resume{{end}}.
{{if .Elapsed}}This invocation ran {{.Ran}} and resumed {{.Skipped}} in {{secs .Elapsed}}.{{end}}</p>
<p class="note">Grid: TTL {{.TTLs}} × renewal {{.Renews}} × client pause {{.Pauses}}, {{.Spec.Runs}} run(s) per cell, {{dur .Spec.TimeLimit}} each, seed {{.Spec.Seed}}.
Every run: the counter workload, {{.Spec.Clients}} clients, holders keep the lock {{dur .Spec.HoldMin}}–{{dur .Spec.HoldMax}} between read and write and
act until their lock tells them it is lost (they ignore their own validity deadline, as code using a watchdog lock usually does).
Lock <code>single</code> where renewal is none, <code>renewable</code> (watchdog) otherwise, {{if eq .Spec.Topology "cluster"}}on a 3-master Redis Cluster (key <code>lock:{lockstorm}</code>){{else}}one Redis node{{end}}, no fencing.
{{if eq .Spec.PauseModel "process"}}Every client is a process (<code>lockstorm client --lock …</code>), and the pause is real (pause model <code>process</code>): the holder's process is stopped with SIGSTOP, its watchdog thread with it, its links frozen and none of its timeouts running, until SIGCONT, as in a stop-the-world GC pause.{{else}}The clients run in process (process clients do not run on a Redis Cluster yet), so a pause freezes the holder's links only (pause model <code>links</code>): its watchdog goroutine keeps running and may warn the holder before the pause ends, which a real stop-the-world pause would not allow. Cells where renewal survives a pause longer than the TTL overstate renewal.{{end}}
Faults: {{if .PauseTimes}}the client holding the lock is paused at {{.PauseTimes}} for the cell's pause length{{else}}none (no pause length above 0){{end}}.</p>

<h2>Violations</h2>
<img src="{{.Violations}}" alt="violations heat map">
<p class="note">Per cell: lost updates (acknowledged increments minus the counter's final value) + overlapping holders + stale writes accepted, averaged over the cell's runs; the small line is the number of acknowledged writes, then the verdict of all checkers.
Without renewal a TTL shorter than the slowest holder produces violations even without faults; renewal removes those, but a pause longer than the TTL still lets the lease expire while its holder is frozen, and its delayed write lands on someone else's lease.</p>

<h2>Availability</h2>
<img src="{{.Availability}}" alt="availability heat map">
<p class="note">Per cell: completed acquire calls that obtained the lock (acquire timeout max(2×TTL, 2s)).
{{if eq .Spec.PauseModel "process"}}A paused client is a stopped process: it tries nothing during its pause, so its pause costs availability only through the lease it holds until the lease expires.{{else}}A paused client's goroutines keep running: one whose watchdog gave up goes on trying to acquire through its frozen links, and those attempts count as failures here.{{end}}</p>

<h2>Cells</h2>
<table>
<tr><th>ttl</th><th>renew</th><th>pause</th><th>run</th><th>verdict</th><th>lost updates</th><th>writes</th><th>overlaps</th><th>late writes</th><th>stale accepted</th>
<th>acquire success</th><th>acquire p50</th><th>acquire p99</th><th>acquires/s</th><th>lock losses</th><th>run</th></tr>
{{range .Cells}}<tr><td>{{dur .TTL}}</td><td>{{.Renew}}</td><td>{{dur .Pause}}</td><td class="num">{{.Run}}</td>
<td class="{{.Verdict}}">{{.Verdict}}</td><td class="num">{{lost .LostUpdates}}</td><td class="num">{{.Writes}}</td><td class="num">{{.Overlaps}}</td>
<td class="num">{{.LateWrites}}</td><td class="num">{{.StaleAccepted}}</td><td class="num">{{pct .SuccessRate}}</td><td class="num">{{ms .WaitP50}}</td>
<td class="num">{{ms .WaitP99}}</td><td class="num">{{printf "%.2f" .Throughput}}</td><td class="num">{{.LockLosses}}</td>
<td>{{if .Dir}}<a href="{{link .Dir}}">report</a>{{end}}{{if .ReportError}} <span class="unknown" title="{{.ReportError}}">(report error)</span>{{end}}</td></tr>
{{end}}</table>
<p class="note">Late writes: writes the resource accepted after the writer's own lease validity had passed. Lock losses: times a holder's watchdog told it the lease was lost.
Also as <a href="table.md">table.md</a> and <a href="table.csv">table.csv</a>; each cell's numbers in <a href="cells/">cells/</a>.</p>
</body></html>
`))

type sweepPage struct {
	*Result
	TTLs, Renews, Pauses, PauseTimes string
	Violations, Availability         template.URL
}

// indexPage renders the sweep's index.html with the heat maps inline.
func indexPage(res *Result, vio, av []byte) ([]byte, error) {
	pg := sweepPage{Result: res, Violations: page.PNG(vio), Availability: page.PNG(av),
		TTLs: page.Durs(res.Spec.Grid.TTLs), Pauses: page.Durs(res.Spec.Grid.Pauses), PauseTimes: page.Durs(res.Spec.PauseTimes())}
	var rs []string
	for _, r := range res.Spec.Grid.Renews {
		rs = append(rs, r.Spec)
	}
	pg.Renews = strings.Join(rs, ", ")
	var buf bytes.Buffer
	if err := sweepTmpl.Execute(&buf, pg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
