//go:build !windows

package install

// recordedPreset: only the Windows installer records a path.
func recordedPreset() string { return "" }

// ProtectDataDir does nothing outside Windows: the data directory is
// created 0700 and the key 0600 by the packages that write them
// (KeyProtection is FileModes).
func ProtectDataDir(string) error { return nil }
