package protocol

import "runtime/debug"

// ModuleVersion is the version of the module path (e.g.
// "github.com/redis/rueidis") this binary was built with, after the
// go.mod's replacements: a zoo adapter shared by a library's version
// entries names the release it runs with it. "(version unknown)" when the
// binary carries no build information or no such module.
func ModuleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path != path {
				continue
			}
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "(version unknown)"
}
