package reports

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/internal/store"
)

// maxIndexBytes is the size index.html keeps under (renderIndex links the
// largest figures instead of inlining them past it).
const maxIndexBytes = 1_900_000

// renderIndex renders index.html from page, inlining as many of its
// figures as fit under maxIndexBytes (fitInline) and linking the others.
func renderIndex(page pageData) ([]byte, error) {
	linked := slices.Clone(page.Figures)
	for i := range linked {
		linked[i].Data = template.URL(linked[i].File)
	}
	var buf bytes.Buffer
	render := func(figs []figure) error {
		p := page
		p.Figures = figs
		buf.Reset()
		if err := indexTmpl.Execute(&buf, p); err != nil {
			return fmt.Errorf("reports: index.html: %w", err)
		}
		return nil
	}
	if err := render(linked); err != nil {
		return nil, err
	}
	if buf.Len() > maxIndexBytes/2 {
		trimPage(&page)
		if err := render(linked); err != nil {
			return nil, err
		}
	}
	fitInline(page.Figures, maxIndexBytes-buf.Len())
	if err := render(page.Figures); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Bounds of a page whose text alone would take more than half of
// maxIndexBytes (a long run's thousands of fault windows, a checker's
// details listing each of them): trimPage cuts its long tables to their
// first maxPageRows rows and each checker's details to maxDetailsBytes,
// saying so. A page that fits is left whole.
const (
	maxPageRows     = 200
	maxDetailsBytes = 16 << 10
)

// trimPage cuts page's fault plan, fault windows, coverage windows and
// checker details to the bounds above.
func trimPage(page *pageData) {
	if n := len(page.Plan); n > maxPageRows {
		page.Plan, page.PlanLeft = page.Plan[:maxPageRows], n-maxPageRows
	}
	if n := len(page.Windows); n > maxPageRows {
		page.Windows, page.WindowsLeft = page.Windows[:maxPageRows], n-maxPageRows
	}
	if c := page.Coverage; c != nil && len(c.Windows) > maxPageRows {
		cut := *c
		cut.Windows, cut.WindowsLeft = c.Windows[:maxPageRows], len(c.Windows)-maxPageRows
		page.Coverage = &cut
	}
	checkers := slices.Clone(page.Checkers)
	for i, c := range checkers {
		if len(c.Details) > maxDetailsBytes {
			cut := c.Details[:maxDetailsBytes]
			if j := strings.LastIndexByte(cut, '\n'); j > 0 {
				cut = cut[:j] // whole lines
			}
			checkers[i].Details = cut + fmt.Sprintf("\n… cut here: %d more bytes; results.json has the whole details", len(c.Details)-len(cut))
		}
	}
	page.Checkers = checkers
}

// fitInline keeps the figures' inline data within budget bytes, turning
// the largest into links to their PNG files, holders.png last, and
// reports how many it turned.
func fitInline(figs []figure, budget int) int {
	total := 0
	for _, f := range figs {
		total += inlineBytes(f)
	}
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	holders := func(i int) int { return oneIf(figs[i].File == store.HoldersFile) } // the main figure, linked last
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(holders(a)-holders(b), len(figs[b].Data)-len(figs[a].Data))
	})
	n := 0
	for _, i := range order {
		if total <= budget {
			break
		}
		total -= inlineBytes(figs[i])
		figs[i].Data = template.URL(figs[i].File)
		n++
	}
	return n
}

// inlineBytes is what inlining f adds to index.html over linking it: its
// data as the template writes it into the attribute, where each '+' and
// '=' of the base64 becomes a 5-byte character reference.
func inlineBytes(f figure) int {
	d := string(f.Data)
	return len(d) + 4*(strings.Count(d, "+")+strings.Count(d, "=")) - len(f.File)
}
