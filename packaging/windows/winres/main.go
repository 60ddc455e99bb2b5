// Command winres writes the Windows resources of newsdesk.exe: the icon
// (newsdesk.ico, from assets/icon.png at the sizes Explorer, the taskbar
// and the Start menu use), the application manifest and a resource script
// (newsdesk.rc) with the icon, the manifest and the version information.
// `make package-windows` compiles the script with mingw-w64's windres into
// a .syso that the Go linker puts into the executable, and gives the icon
// to the MSI. Everything here is offline: no tool beyond mingw-w64.
//
//	go run ./packaging/windows/winres -icon assets/icon.png -version 0.1.0 -build 1 -out DIR
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
)

// iconSizes are the square sizes written into the .ico.
var iconSizes = []int{16, 24, 32, 48, 64, 128, 256}

func main() {
	iconPath := flag.String("icon", "assets/icon.png", "source `PNG` (square, at least 256 pixels)")
	version := flag.String("version", "", "product version `X.Y.Z` (FyneApp.toml's Version)")
	build := flag.Int("build", 0, "build `number` (FyneApp.toml's Build): the fourth part of the file version")
	out := flag.String("out", "", "output `directory`")
	flag.Parse()
	if *out == "" || *version == "" {
		log.Fatal("winres: -out and -version are required")
	}
	v, err := parseVersion(*version, *build)
	if err != nil {
		log.Fatalf("winres: %v", err)
	}
	src, err := os.ReadFile(*iconPath)
	if err != nil {
		log.Fatalf("winres: %v", err)
	}
	ico, err := encodeICO(src, iconSizes)
	if err != nil {
		log.Fatalf("winres: %s: %v", *iconPath, err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatalf("winres: %v", err)
	}
	var rc, manifest bytes.Buffer
	if err := rcTemplate.Execute(&rc, v); err != nil {
		log.Fatalf("winres: %v", err)
	}
	if err := manifestTemplate.Execute(&manifest, v); err != nil {
		log.Fatalf("winres: %v", err)
	}
	for name, data := range map[string][]byte{
		"newsdesk.ico":      ico,
		"newsdesk.rc":       rc.Bytes(),
		"newsdesk.manifest": manifest.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			log.Fatalf("winres: %v", err)
		}
	}
}

// versionInfo is the version as the templates use it.
type versionInfo struct {
	Product string // "0.1.0"
	File    string // "0.1.0.1"
	Comma   string // "0,1,0,1" (VERSIONINFO's FILEVERSION)
}

func parseVersion(s string, build int) (versionInfo, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || build < 0 || build > 65535 {
		return versionInfo{}, fmt.Errorf("version %q build %d: want X.Y.Z and a build of 0–65535", s, build)
	}
	for _, p := range parts {
		if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
			return versionInfo{}, fmt.Errorf("version %q: each part must be 0–65535", s)
		}
	}
	all := append(parts, strconv.Itoa(build))
	return versionInfo{Product: s, File: strings.Join(all, "."), Comma: strings.Join(all, ",")}, nil
}

// encodeICO returns an .ico holding the PNG src scaled to each size, each
// image PNG-compressed (Windows Vista and later read those).
func encodeICO(src []byte, sizes []int) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	if b := img.Bounds(); b.Dx() != b.Dy() || b.Dx() < sizes[len(sizes)-1] {
		return nil, fmt.Errorf("want a square image of at least %d pixels, have %dx%d", sizes[len(sizes)-1], b.Dx(), b.Dy())
	}
	var images [][]byte
	for _, n := range sizes {
		var buf bytes.Buffer
		if err := png.Encode(&buf, scale(img, n)); err != nil {
			return nil, err
		}
		images = append(images, buf.Bytes())
	}
	var out bytes.Buffer
	le := func(v any) { _ = binary.Write(&out, binary.LittleEndian, v) }
	le([3]uint16{0, 1, uint16(len(sizes))}) // ICONDIR: reserved, type 1 (icon), count
	offset := 6 + 16*len(sizes)
	for i, n := range sizes {
		dim := uint8(n)              // 256 is written as 0
		le([4]uint8{dim, dim, 0, 0}) // width, height, palette colours, reserved
		le([2]uint16{1, 32})         // colour planes, bits per pixel
		le([2]uint32{uint32(len(images[i])), uint32(offset)})
		offset += len(images[i])
	}
	for _, b := range images {
		out.Write(b)
	}
	return out.Bytes(), nil
}

// scale resamples img to n×n by averaging the source pixels each target
// pixel covers (area averaging, on premultiplied colours), which keeps
// small icons sharp enough without a resampling library.
func scale(img image.Image, n int) *image.NRGBA {
	b := img.Bounds()
	w := b.Dx()
	dst := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		y0, y1 := y*w/n, max((y+1)*w/n, y*w/n+1)
		for x := range n {
			x0, x1 := x*w/n, max((x+1)*w/n, x*w/n+1)
			var r, g, bl, a, count uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := img.At(b.Min.X+sx, b.Min.Y+sy).RGBA() // premultiplied, 16-bit
					r, g, bl, a, count = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), count+1
				}
			}
			c := color.RGBA64{uint16(r / count), uint16(g / count), uint16(bl / count), uint16(a / count)}
			dst.Set(x, y, c)
		}
	}
	return dst
}

// The resource script. Numeric types and flags stand for winver.h's names
// so that windres needs no include path: 24 is RT_MANIFEST, 0x40004
// VOS_NT_WINDOWS32, 1 VFT_APP; 0x409/1200 is US English, Unicode.
var rcTemplate = template.Must(template.New("rc").Parse(`// Generated by packaging/windows/winres; do not edit.
1 ICON "newsdesk.ico"
1 24 "newsdesk.manifest"
1 VERSIONINFO
FILEVERSION {{.Comma}}
PRODUCTVERSION {{.Comma}}
FILEFLAGSMASK 0x3f
FILEFLAGS 0x0
FILEOS 0x40004
FILETYPE 0x1
FILESUBTYPE 0x0
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904b0"
    BEGIN
      VALUE "CompanyName", "Newsdesk"
      VALUE "FileDescription", "Newsdesk company news"
      VALUE "FileVersion", "{{.File}}"
      VALUE "InternalName", "newsdesk"
      VALUE "LegalCopyright", "Newsdesk"
      VALUE "OriginalFilename", "newsdesk.exe"
      VALUE "ProductName", "Newsdesk"
      VALUE "ProductVersion", "{{.Product}}"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
`))

// The manifest: the identity Fyne's packager writes, plus the Windows
// versions the app supports (without them Windows 10 and 11 run it under
// compatibility shims) and per-monitor DPI awareness, which GLFW expects.
var manifestTemplate = template.Must(template.New("manifest").Parse(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0" xmlns:asmv3="urn:schemas-microsoft-com:asm.v3">
  <assemblyIdentity version="{{.File}}" processorArchitecture="*" name="Newsdesk" type="win32"/>
  <compatibility xmlns="urn:schemas-microsoft-com:compatibility.v1">
    <application>
      <supportedOS Id="{8e0f7a12-bfb3-4fe8-b9a5-48fd50a15a9a}"/><!-- Windows 10 and 11 -->
      <supportedOS Id="{1f676c76-80e1-4239-95bb-83d0f6d0da78}"/><!-- Windows 8.1 -->
    </application>
  </compatibility>
  <asmv3:application>
    <asmv3:windowsSettings>
      <dpiAware xmlns="http://schemas.microsoft.com/SMI/2005/WindowsSettings">true/pm</dpiAware>
      <dpiAwareness xmlns="http://schemas.microsoft.com/SMI/2016/WindowsSettings">PerMonitorV2</dpiAwareness>
    </asmv3:windowsSettings>
  </asmv3:application>
</assembly>
`))
