//go:build windows

package install

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// recordedPreset reads the definition path the MSI recorded from its
// NETWORK property, "" when there is none.
func recordedPreset() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, RegistryKey, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return ""
	}
	defer k.Close()
	v, _, err := k.GetStringValue(RegistryValue)
	if err != nil {
		return ""
	}
	return v
}

// ProtectDataDir creates dir if needed and gives it OwnerOnlySDDL for the
// current user (KeyProtection is OwnerACL): a protected DACL that Windows
// also applies to the files already in it. It runs at every start, before
// the key is created or read, so a directory made by hand or by an older
// version is corrected too.
func ProtectDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("protecting %s: the current user: %w", dir, err)
	}
	sddl, err := OwnerOnlySDDL(user.User.Sid.String())
	if err != nil {
		return fmt.Errorf("protecting %s: %w", dir, err)
	}
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		return fmt.Errorf("protecting %s: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("protecting %s: %w", dir, err)
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("protecting %s: %w", dir, err)
	}
	return nil
}
