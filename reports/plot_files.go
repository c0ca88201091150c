package reports

import (
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"os"
	"path/filepath"
	"sync"
)

// plotFile is one PNG of the report: its file name, its title and caption
// on the page, and how to draw it.
type plotFile struct {
	file, title, caption string
	draw                 func() ([]byte, error)
}

// drawPlots draws each plot on its own goroutine (added to wg) and writes
// it into dir: figs[i] is plot i's figure, errs[i] its error.
func drawPlots(wg *sync.WaitGroup, dir string, plots []plotFile, figs []figure, errs []error) {
	for i, pl := range plots {
		wg.Go(func() {
			png, err := pl.draw()
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, pl.file), png, 0o644)
			}
			if err != nil {
				errs[i] = fmt.Errorf("reports: %s: %w", pl.file, err)
				return
			}
			figs[i] = figure{File: pl.file, Title: pl.title, Caption: pl.caption, Data: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))}
		})
	}
}

// drawnFigures are the figures that were drawn, in order.
func drawnFigures(figs []figure) []figure {
	var shown []figure
	for _, f := range figs {
		if f.File != "" {
			shown = append(shown, f)
		}
	}
	return shown
}

// writeNotePage writes file into dir as a short page titled title that
// says text: a page of the report that could not be drawn, and why.
func writeNotePage(dir, file, title, text string) error {
	t := html.EscapeString(title)
	page := "<!DOCTYPE html><meta charset=\"utf-8\"><title>" + t + "</title><h1>" + t + "</h1><p>" + html.EscapeString(text) + "</p>\n"
	return writeFile(dir, file, []byte(page))
}

// writeFile writes b as file into dir.
func writeFile(dir, file string, b []byte) error {
	if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}
