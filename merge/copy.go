package merge

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/store"
)

// copyRuns copies each item's run folder into the store out, under the
// same relative path, and returns the items' folders relative to out (""
// for an item without one). A path taken by another shard's run (two
// machines started a run of one test in the same millisecond) gets the
// next free millisecond's name. An input that is out itself is left in
// place.
func copyRuns(w *shard.Work, out string) ([]string, error) {
	dirs := make([]string, len(w.Items))
	taken := map[string]bool{}
	for i, it := range w.Items {
		if it.Dir == "" {
			continue
		}
		rel := filepath.FromSlash(it.Dir)
		src := filepath.Join(w.Roots[i], rel)
		if _, err := os.Stat(src); err != nil {
			return nil, fmt.Errorf("%w: %s: the run folder %s of item %d is missing: %v", ErrMerge, w.Roots[i], it.Dir, it.Index, err)
		}
		if same(w.Roots[i], out) {
			taken[rel] = true
			dirs[i] = rel
			continue
		}
		dst := free(rel, taken)
		taken[dst] = true
		if err := copyTree(src, filepath.Join(out, dst)); err != nil {
			return nil, fmt.Errorf("%w: copying %s: %v", ErrMerge, src, err)
		}
		dirs[i] = dst
	}
	return dirs, nil
}

// same reports whether two paths name one folder.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// free is rel, or when another item of this merge took it a run folder
// name a millisecond later. (A folder an earlier merge into out left there
// is the same run again and is overwritten.)
func free(rel string, taken map[string]bool) string {
	cand := rel
	t, err := time.ParseInLocation(store.RunDirLayout, filepath.Base(rel), time.Local)
	for step := 1; taken[cand]; step++ {
		if err != nil {
			cand = fmt.Sprintf("%s-%d", rel, step+1)
			continue
		}
		cand = filepath.Join(filepath.Dir(rel), t.Add(time.Duration(step)*time.Millisecond).Format(store.RunDirLayout))
	}
	return cand
}

// copyTree copies the regular files and folders under src to dst
// (symbolic links are left out).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
