package reports

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
)

// coverageView is the report's coverage section: what the run's faults
// touched, per kind and per window, and why it falls short of the bar.
type coverageView struct {
	Requested string
	Min       int
	Unjudged  string
	Kinds     []coverage.KindCount
	// Legend says what each column counts (coverage.Columns).
	Legend  []coverage.Column
	Windows []coverageWindow
	// WindowsLeft is how many windows are not listed (trimPage).
	WindowsLeft int
	Gaps        []string
}

// coverageWindow is one fault window's row.
type coverageWindow struct {
	Kind, Detail          string
	Start, End, Ops       string
	Applied, Unhealed     bool
	Clients, Nodes        string
	Holder, Waiter, Write string
}

// coverageSection builds the section from res's coverage (nil: no faults).
func coverageSection(c *coverage.Report, recordAt func(i int64) (history.Op, bool)) *coverageView {
	if c == nil {
		return nil
	}
	v := &coverageView{Requested: strings.Join(c.Requested, ", "), Min: c.Min, Unjudged: c.Unjudged,
		Kinds: c.Kinds, Gaps: c.Gaps, Legend: coverage.Columns}
	for _, w := range c.Windows {
		ops := fmt.Sprint(w.StartOp)
		if w.StopOp >= 0 {
			ops += ".." + fmt.Sprint(w.StopOp)
		}
		v.Windows = append(v.Windows, coverageWindow{Kind: w.Kind, Detail: w.Detail,
			Start: fmt.Sprintf("%.3f", seconds(w.Start)), End: fmt.Sprintf("%.3f", seconds(w.End)), Ops: ops,
			Applied: w.Applied, Unhealed: w.Unhealed,
			Clients: strings.Join(w.Clients, ","), Nodes: strings.Join(w.Nodes, ","),
			Holder: touchText(w.Holder, recordAt), Waiter: touchText(w.Waiter, recordAt), Write: touchText(w.Write, recordAt)})
	}
	return v
}

// touchText is "c1 at start: op 12 (acquire ok at 1.234 s)", or "" when
// the window touched no client in that state.
func touchText(t *coverage.Touch, recordAt func(i int64) (history.Op, bool)) string {
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("%s %s: op %d", t.Client, map[string]string{coverage.AtStart: "at start", coverage.During: "during"}[t.When], t.Op)
	if o, ok := recordAt(t.Op); ok {
		s += fmt.Sprintf(" (%s %s at %.3f s)", o.F, o.Type, seconds(o.Time))
	}
	return s
}

// coverageTemplate renders the section; index.html.tmpl includes it with
// {{template "coverage" .Coverage}}.
const coverageTemplate = `{{with .}}<h3 id="coverage">Coverage: what the faults touched</h3>
<p class="muted">requested: {{if .Requested}}{{.Requested}}{{else}}none{{end}} · bar: {{if gt .Min 0}}at least {{.Min}} fault(s) of each requested kind touching a lock holder or waiter{{else}}none (--min-coverage 0){{end}}</p>
{{with .Unjudged}}<p><b>{{.}}</b></p>{{end}}
{{if .Gaps}}<ul>{{range .Gaps}}<li><b>{{.}}</b></li>{{end}}</ul>{{end}}
<table>
<tr><th>kind</th><th class="num">planned</th><th class="num">applied</th><th class="num">holder</th><th class="num">holder at start</th><th class="num">waiter</th><th class="num">write</th><th class="num">exercised</th></tr>
{{range .Kinds}}<tr><td>{{.Kind}}</td><td class="num">{{.Planned}}</td><td class="num">{{.Applied}}</td><td class="num">{{.TouchedHolder}}</td><td class="num">{{.HolderAtStart}}</td><td class="num">{{.TouchedWaiter}}</td><td class="num">{{.TouchedWrite}}</td><td class="num">{{.Exercised}}</td></tr>{{end}}
</table>
<dl class="legend" id="coverage-legend">{{range .Legend}}<dt>{{.Name}}</dt><dd>{{.Meaning}}</dd>{{end}}</dl>
{{if .Windows}}<table class="records">
<tr><th>kind</th><th class="num">start (s)</th><th class="num">end (s)</th><th class="num">ops</th><th>applied</th><th>clients hit</th><th>nodes</th><th>holder</th><th>waiter</th><th>write</th></tr>
{{range .Windows}}<tr><td class="mono" title="{{.Detail}}">{{.Kind}}</td><td class="num">{{.Start}}</td><td class="num">{{.End}}{{if .Unhealed}} (unhealed){{end}}</td><td class="num">{{.Ops}}</td><td>{{if .Applied}}yes{{else}}<b>no</b>{{end}}</td><td class="mono">{{.Clients}}</td><td class="mono">{{.Nodes}}</td><td class="mono">{{.Holder}}</td><td class="mono">{{.Waiter}}</td><td class="mono">{{.Write}}</td></tr>{{end}}
</table>{{end}}
{{with .WindowsLeft}}<p class="muted">… and {{count . "more fault window" "more fault windows"}}, not listed here: results.json has them all.</p>{{end}}
{{end}}`

var _ = template.Must(indexTmpl.New("coverage").Parse(coverageTemplate))
