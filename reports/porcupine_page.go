package reports

import (
	"bytes"
	"fmt"
	"html"
	"path/filepath"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
)

// porcupineTitle is the title of a porcupine page of res: what it shows,
// the run, the lock and the verdict v of the page's own search (nil for a
// note page), e.g. "Lock check (porcupine) — single-counter
// 20261203T104020.424, lock single: this check INVALID (not linearizable)".
func porcupineTitle(res *analysis.Result, what string, v *checker.Validity) string {
	cfg := res.Config
	t := fmt.Sprintf("%s — %s %s, lock %s", what, cfg.Name, filepath.Base(res.Dir), cfg.Lock)
	if v == nil {
		return t
	}
	return t + ": this check " + searchVerdict(*v)
}

// searchVerdict says what a porcupine search's verdict v means.
func searchVerdict(v checker.Validity) string {
	switch v {
	case checker.Valid:
		return "VALID (linearizable)"
	case checker.Invalid:
		return "INVALID (not linearizable)"
	}
	return "UNKNOWN (the search did not finish)"
}

// decoratePorcupine gives a page porcupine's Visualize (v1.3.1) wrote a
// title, a heading, and a script that, when opened with "#op=N", selects
// the operation whose records (its metadata "ops 12,15") include op N,
// else the nearest one, as a click would, outlines it and scrolls to it.
func decoratePorcupine(page []byte, title string) []byte {
	esc := html.EscapeString(title)
	page = bytes.Replace(page, []byte("<title>Porcupine</title>"), []byte("<title>"+esc+"</title>"), 1)
	// The fixed heading pushes the legend and the canvas down.
	head := `<body>
    <style>
      #lockstorm-head { position: fixed; left: 0; top: 0; right: 0; z-index: 2; background: #fff;
        padding: 6px 10px 4px; font-family: sans-serif; border-bottom: 1px solid #ddd; }
      #lockstorm-head h1 { font-size: 16px; margin: 0 0 2px; }
      #lockstorm-head p { font-size: 13px; margin: 0; color: #555; min-height: 1em; }
      #legend { top: 56px; }
      #canvas { margin-top: 95px; }
    </style>
    <div id="lockstorm-head"><h1 id="lockstorm-title">` + esc + `</h1><p id="lockstorm-target-note"></p></div>`
	page = bytes.Replace(page, []byte("<body>"), []byte(head), 1)
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return page
	}
	out := append([]byte{}, page[:i]...)
	out = append(out, porcupineTargetScript...)
	return append(out, page[i:]...)
}

// porcupineTargetScript selects the operation named in the page's
// "#op=N" fragment (see decoratePorcupine).
const porcupineTargetScript = `<style>
      rect.history-rect.lockstorm-target { stroke: #d62728; stroke-width: 4px; }
    </style>
    <script>
      (function () {
        function show() {
          var m = /(?:^#|&)op=(\d+)/.exec(location.hash)
          if (!m || typeof data === 'undefined' || !data.Partitions) return
          var want = Number(m[1]), best = null, outside = ''
          if (typeof lockstormSegments !== 'undefined') {
            var here = null, there = null
            lockstormSegments.forEach(function (s) {
              if (want < s.first || want > s.last) return
              if (s.file === lockstormHere) here = s
              else if (!there) there = s
            })
            if (!here && there) {
              location.replace(there.file + '#op=' + want)
              return
            }
            if (!here) outside = 'Op ' + want + ' is outside every segment drawn; '
          }
          data.Partitions.forEach(function (part, p) {
            part.History.forEach(function (el, i) {
              // the record indices: the metadata up to its separator
              var md = String(el.Metadata || '').split('` + checker.MetadataSep + `')[0]
              ;(md.match(/\d+/g) || []).forEach(function (s) {
                var d = Math.abs(Number(s) - want)
                if (best === null || d < best.d) best = {d: d, p: p, i: i, md: md}
              })
            })
          })
          var note = document.getElementById('lockstorm-target-note')
          if (best === null) {
            note.textContent = 'op ' + want + ' is not on this page.'
            return
          }
          var sel = 'rect.target-rect[data-partition="' + best.p + '"][data-index="' + best.i + '"]'
          var target = document.querySelector(sel)
          if (!target) return
          document.querySelectorAll('rect.lockstorm-target').forEach(function (r) { r.classList.remove('lockstorm-target') })
          var box = target.getBoundingClientRect()
          target.dispatchEvent(new MouseEvent('click', {bubbles: true,
            clientX: box.left + box.width / 2, clientY: box.top + box.height / 2}))
          var shown = document.querySelector('rect.history-rect.selected')
          if (shown) shown.classList.add('lockstorm-target')
          target.scrollIntoView({block: 'center', inline: 'center'})
          document.body.setAttribute('data-lockstorm-op', String(want))
          note.textContent = outside ? outside + 'the nearest op on this page (' + best.md + ') is selected and outlined in red.'
            : best.d === 0
            ? 'Op ' + want + ' (' + best.md + ') is selected and outlined in red.'
            : 'Op ' + want + ' is not one of this page\'s operations; the nearest one (' + best.md + ') is selected and outlined in red.'
        }
        show()
        window.addEventListener('hashchange', show)
      })()
    </script>
  `

// segmentRef is one segment page as the pages' script sees it: its file
// and the record indices it spans.
type segmentRef struct {
	File        string `json:"file"`
	First, Last int64
}

// markSegment adds to a decorated page of one failing segment its note
// and every segment page of its kind (all), so that "#op=N" of another
// segment's op goes to its page.
func markSegment(page []byte, note, here string, all []segmentRef) []byte {
	segs := make([]string, len(all))
	for i, r := range all {
		segs[i] = fmt.Sprintf("{file: %q, first: %d, last: %d}", r.File, r.First, r.Last)
	}
	js := fmt.Sprintf("var lockstormSegments = [%s]\n      var lockstormHere = %q", strings.Join(segs, ", "), here)
	add := `<p id="lockstorm-segment">` + html.EscapeString(note) + `</p><p id="lockstorm-target-note"></p></div>
    <style>
      #lockstorm-head p#lockstorm-segment { color: #333; max-width: 1100px; }
      #legend { top: 100px; }
      #canvas { margin-top: 140px; }
    </style>
    <script>
      ` + js + `
      // the note may wrap onto several lines: move the legend and the
      // canvas below the heading, whatever its height
      document.addEventListener('DOMContentLoaded', function () {
        var hd = document.getElementById('lockstorm-head')
        var lg = document.getElementById('legend'), cv = document.getElementById('canvas')
        if (!hd) return
        if (lg) lg.style.top = (hd.offsetHeight + 8) + 'px'
        if (cv) cv.style.marginTop = (hd.offsetHeight + 48) + 'px'
      })
    </script>`
	return bytes.Replace(page, []byte(`<p id="lockstorm-target-note"></p></div>`), []byte(add), 1)
}
