package zoo

import (
	"bytes"
	"fmt"
	"html/template"
	"path/filepath"
)

// pageTemplate is the scoreboard: rows are the entries (library, version,
// language, claims), columns the faults; a cell shows k/N, the checkers
// that flagged it, the median time to detect and its agreement, and links
// to its runs with each run's replay line.
var pageTemplate = template.Must(template.New("zoo").Funcs(template.FuncMap{
	"cellAt": cellAt, "cellText": cellText, "link": runLink, "summary": SummaryLine,
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>lockstorm zoo</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.4em;vertical-align:top}
th{background:#f4f4f4;text-align:left}.agree{background:#e5f5e0}.finding{background:#fdd0cc}
.missed{background:#fbe3c8}.known{background:#c7e9c0;font-weight:bold}.unknown{background:#fff3c4}.skipped{background:#eee;color:#777}.claims{max-width:28em;font-size:12px;color:#555}
.runs{font-size:12px}.runs a{margin-right:.4em}code{font-size:11px;word-break:break-all}details{margin-top:.3em}
</style></head><body>
<h1>lockstorm zoo</h1>
<p><b>{{summary .Summary}}</b></p>
<p>{{.Seeds}} seed(s) per cell, {{.TimeLimit}} per run, {{printf "%.0f" .Seconds}} s in all.
{{with .Count}}Cells: {{index . "agree"}} agree, <b>{{index . "finding"}} findings</b>, <b>{{index . "missed"}} missed</b>, {{index . "unknown"}} unknown, {{index . "skipped"}} skipped.{{end}}
{{if .Interrupted}}<b>Interrupted: not every cell ran.</b>{{end}}</p>
<p>A cell reads k/N valid (expected valid) or k/N detected (expected invalid: every checker it names flagged the run), then the checkers that flagged any run and the median time to detect, in seconds into the run. A <b>known bug reproduced</b> is a cell naming an upstream bug (known:) whose checkers flagged it; a <b>fixed version clean</b> is the twin carrying the fix, clean in the same cell. A <b>new finding</b> is a cell where a checker flagged what the documentation promises; a <b>missed</b> cell is one where the failure the documentation leads one to expect did not show (the library does better than documented, or lockstorm's faults did not reach it). Both disagree with the expectation committed before the cell ran (its <i>why</i> is on hover and under the cell). Unknown is never counted as agreement.</p>
<table><tr><th>entry</th><th>library · version · language</th>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range $e := .Entries}}<tr><td><a href="{{$e.Upstream}}">{{$e.Name}}</a>{{if $e.Skipped}}<br><small>skipped: {{$e.Skipped}}</small>{{end}}{{if $e.BuildError}}<br><small>build failed: {{$e.BuildError}}</small>{{end}}</td>
<td>{{$e.Library}} · {{$e.Version}} · {{$e.Language}}<br><span class="claims">{{$e.Claims}}</span></td>
{{range $col := $.Columns}}{{with cellAt $e $col}}<td class="{{.Status}}{{if .Cell.Known}} known{{end}}" title="{{.Cell.Why}}">expect {{.Cell.Expected}}<br><b>{{cellText .}}</b>
<div class="runs">{{range .Runs}}<a href="{{link $.Dir .Dir}}">seed {{.Seed}}: {{.Verdict}}</a>{{end}}</div>
<details><summary>why, replay</summary><p>{{.Cell.Why}}{{if .Cell.Ref}} <a href="{{.Cell.Ref}}">ref</a>{{end}}</p>{{range .Runs}}<p><code>{{.Replay}}</code>{{if .First}}<br>{{.First}}{{end}}{{if .Error}}<br>{{.Error}}{{end}}</p>{{end}}</details></td>
{{else}}<td>—</td>{{end}}{{end}}</tr>
{{end}}</table></body></html>
`))

// Page is the scoreboard page, index.html of the zoo run's folder.
func Page(b *Board) ([]byte, error) {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, b); err != nil {
		return nil, fmt.Errorf("zoo page: %w", err)
	}
	return buf.Bytes(), nil
}

// runLink is a run's report relative to the board's folder.
func runLink(boardDir, runDir string) string {
	if runDir == "" {
		return ""
	}
	rel, err := filepath.Rel(boardDir, runDir)
	if err != nil {
		rel = runDir
	}
	return filepath.ToSlash(filepath.Join(rel, "index.html"))
}
