package python

// ScriptDir lets the tests remove the directory Command writes the
// scripts to.
var ScriptDir = scriptDir
