module clocale

go 1.26
