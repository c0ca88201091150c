// Package soak holds the long soak test of a real `lockstorm run`: its
// memory must stay flat however long the run (see soak_test.go). It has
// no code of its own.
package soak
