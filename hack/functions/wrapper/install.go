package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// installedName is the wrapper's file name in the directory it is installed into.
const installedName = "function-wrapper"

// install copies the running binary into dir (written under a temporary name, then renamed, so
// the function container never sees half a binary).
func install(dir string) error {
	self, err := os.Open("/proc/self/exe")
	if err != nil {
		return err
	}
	defer self.Close()
	tmp, err := os.CreateTemp(dir, ".function-wrapper-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, self); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o555); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	target := filepath.Join(dir, installedName)
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "installed %s\n", target)
	return nil
}
