package newsnet

// Counters are monotonic totals since the servant started.
type Counters struct {
	Published  uint64 // Publish events
	Suppressed uint64 // publications sent on no link: nobody subscribed
	Delivered  uint64 // messages handed to the local application
	Relayed    uint64 // multicast frames forwarded to other servants
	Duplicates uint64 // copies dropped by ID
	Resets     uint64 // tree optimization resets this servant sent
	Lost       uint64 // needed messages no holder could retransmit (Config.Lost included)

	// Flow control: items withheld from a busy link (sent later from the
	// cache or store), and those of them dropped for good (the backlog was
	// full or the item was gone; the link got the source's edge instead).
	Withheld, BacklogDropped uint64

	// Gap classification (JP3679935B2): missed counts found needed, found
	// not needed (skipped without a request), and the counts asked for in
	// retransmission requests (messages, and categories only; retries
	// included).
	GapNeeded, GapSkipped       uint64
	AskedMessages, AskedClasses uint64
	// AskedOwed counts the probes (retries included) that looked for the
	// first count of a newly met source owed to us (owed.go).
	AskedOwed uint64

	// Frames sent, by kind: multicast payload; periodic upkeep (pings,
	// partition messages); control (joins, siblings, resets, routing
	// information), which is what tree changes cost; and recovery
	// (retransmission requests and answers, catch-up).
	MulticastFrames, PeriodicFrames, ControlFrames, RecoveryFrames uint64
	// EdgeFrames are leading edges sent (edge.go): after link changes and
	// for items a busy link could not be sent.
	EdgeFrames uint64

	// Direct delivery (direct.go): our items sent over direct links, items
	// that arrived over one first, refusals our requests met, and the
	// frames that set direct links up and keep the exceptions (requests,
	// answers, hellos, covers).
	DirectSent, DirectReceived, DirectRefused, DirectFrames uint64

	// ReportFrames are reach reports sent (reach.go).
	ReportFrames uint64

	// Requests within budget (requests.go, pages.go): requests that had to
	// wait for their link's answers to drain, those refused beyond the
	// waiting bounds, and catch-up pages read off the loop.
	RequestsWaited, RequestsRefused, PagesRead uint64
	// Reach reports within budget (reach_budget.go): reports and report
	// entries refused beyond their rate, and entries whose identity lists
	// were dropped beyond the link's bytes.
	ReportsRefused, ReachListsDropped uint64
	// ReachBlobsRefused: identity and acknowledgement blobs in reports
	// that did not verify (Config.VerifyReachBlob).
	ReachBlobsRefused uint64
	// EdgesRefused: edges of new sources beyond a link's allowance.
	EdgesRefused uint64
	// Forged: items rejected for a reason in Config.ForgedReasons.
	Forged uint64
	// Opinions: second opinions asked of seeds; SilentUps: up-servants
	// left because they passed on nothing of a stream a seed knew had
	// moved on (opinion.go).
	Opinions, SilentUps uint64
	// AudienceWithheld: answers not sent to a leaf that advertises an
	// address inside the item's audience while it connects from outside.
	AudienceWithheld uint64

	// TooNew counts frames not sent because the link runs at a wire
	// version older than the frame (newer).
	TooNew uint64
}
