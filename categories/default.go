package categories

// Default returns the catalog a new network starts with, at version 1. Admins
// replace it with a signed catalog of a higher version.
func Default() *Catalog {
	c, err := NewCatalog(1, []Category{
		{ID: "company", Name: "Company", Description: "Company-wide announcements from management and communications"},
		{ID: "it", Name: "IT", Description: "IT services: outages, maintenance windows, security notices"},
		{ID: "hr", Name: "HR", Description: "People and policies: benefits, holidays, training, job openings"},
		{ID: "facilities", Name: "Facilities", Description: "Buildings and offices: access, parking, catering, works"},
		{ID: "sales", Name: "Sales", Description: "Sales news from every region"},
		{ID: "sales/emea", Name: "Sales EMEA", Description: "Sales in Europe, the Middle East and Africa"},
		{ID: "sales/americas", Name: "Sales Americas", Description: "Sales in North, Central and South America"},
		{ID: "sales/apac", Name: "Sales APAC", Description: "Sales in Asia and the Pacific"},
	})
	if err != nil {
		// The literal above is fixed; a failure here is a programming error
		// caught by the package tests.
		panic(err)
	}
	return c
}
