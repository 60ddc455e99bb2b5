package main

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"os"
	"strings"
	"testing"
)

// TestICO: the icon holds every size, each a PNG of that size, where the
// directory says it is.
func TestICO(t *testing.T) {
	src, err := os.ReadFile("../../../assets/icon.png")
	if err != nil {
		t.Fatal(err)
	}
	ico, err := encodeICO(src, iconSizes)
	if err != nil {
		t.Fatal(err)
	}
	var hdr [3]uint16
	if err := binary.Read(bytes.NewReader(ico), binary.LittleEndian, &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr != [3]uint16{0, 1, uint16(len(iconSizes))} {
		t.Fatalf("ICONDIR %v", hdr)
	}
	for i, n := range iconSizes {
		e := ico[6+16*i : 6+16*(i+1)]
		if w, h := int(e[0]), int(e[1]); w != n%256 || h != n%256 {
			t.Errorf("entry %d: %dx%d, want %d (256 as 0)", i, w, h, n)
		}
		size := binary.LittleEndian.Uint32(e[8:])
		off := binary.LittleEndian.Uint32(e[12:])
		img, err := png.Decode(bytes.NewReader(ico[off : off+size]))
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if b := img.Bounds(); b.Dx() != n || b.Dy() != n {
			t.Errorf("entry %d is %v, want %d×%d", i, b, n, n)
		}
	}
	if _, err := encodeICO([]byte("not a png"), iconSizes); err == nil {
		t.Error("garbage encoded")
	}
}

func TestVersion(t *testing.T) {
	v, err := parseVersion("0.1.0", 7)
	if err != nil || v.Product != "0.1.0" || v.File != "0.1.0.7" || v.Comma != "0,1,0,7" {
		t.Fatalf("parseVersion = %+v, %v", v, err)
	}
	var rc bytes.Buffer
	if err := rcTemplate.Execute(&rc, v); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FILEVERSION 0,1,0,7", `"ProductVersion", "0.1.0"`, `1 ICON "newsdesk.ico"`, `1 24 "newsdesk.manifest"`} {
		if !strings.Contains(rc.String(), want) {
			t.Errorf("the resource script lacks %s", want)
		}
	}
	for _, bad := range []string{"0.1", "1.2.3.4", "a.b.c", "1.2.70000", ""} {
		if _, err := parseVersion(bad, 1); err == nil {
			t.Errorf("parseVersion(%q) accepted", bad)
		}
	}
	if _, err := parseVersion("1.2.3", -1); err == nil {
		t.Error("negative build accepted")
	}
}
