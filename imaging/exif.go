package imaging

import "encoding/binary"

// Orientation returns the EXIF orientation of a JPEG (1 to 8, see
// Orient), or 1 when it has none or its EXIF cannot be read.
//
// It reads the JPEG's segments up to the image data looking for an APP1
// segment holding "Exif\0\0", then the TIFF header after it (byte order
// "II" or "MM", the number 42, the offset of the first IFD) and the tag
// 0x0112 among IFD0's entries. The input may be anything: every offset is
// checked against the bytes there are before it is used, each step moves
// forward, and nothing is allocated.
func Orientation(data []byte) int {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return 1
	}
	at := 2
	for at+4 <= len(data) {
		if data[at] != 0xFF {
			return 1 // not a marker: the file is damaged
		}
		marker := data[at+1]
		switch {
		case marker == 0xFF: // fill byte before a marker
			at++
			continue
		case marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			at += 2 // markers without a length
			continue
		case marker == 0xDA || marker == 0xD9:
			return 1 // the image data (or its end): EXIF comes before
		}
		n := int(binary.BigEndian.Uint16(data[at+2:])) // counts itself
		if n < 2 || at+2+n > len(data) {
			return 1
		}
		seg := data[at+4 : at+2+n]
		if marker == 0xE1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			if o, ok := tiffOrientation(seg[6:]); ok {
				return o
			}
		}
		at += 2 + n
	}
	return 1
}

// orientationTag is the EXIF tag of the orientation (TIFF 6.0: SHORT).
const orientationTag = 0x0112

// tiffOrientation reads the orientation from IFD0 of a TIFF structure;
// false when there is none, or not a valid one.
func tiffOrientation(t []byte) (int, bool) {
	if len(t) < 8 {
		return 0, false
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0, false
	}
	if bo.Uint16(t[2:]) != 42 {
		return 0, false
	}
	ifd := uint64(bo.Uint32(t[4:]))
	if ifd+2 > uint64(len(t)) {
		return 0, false
	}
	count := uint64(bo.Uint16(t[ifd:]))
	entries := ifd + 2
	// Only the entries that are there: a count beyond the segment stops
	// at its end.
	for i := uint64(0); i < count && entries+12*(i+1) <= uint64(len(t)); i++ {
		e := t[entries+12*i:]
		if bo.Uint16(e) != orientationTag {
			continue
		}
		typ, n := bo.Uint16(e[2:]), bo.Uint32(e[4:])
		if typ != 3 || n != 1 { // one SHORT, stored in the value field
			return 0, false
		}
		o := int(bo.Uint16(e[8:]))
		if o < 1 || o > 8 {
			return 0, false
		}
		return o, true
	}
	return 0, false
}
