"""Vocabulary the world builder draws from: names, companies, teams, services, time zones, products.

Broad pools keep generated worlds apart: two seeds rarely share a cast, a company or a service map.
"""

from __future__ import annotations

# fmt: off
FIRST_NAMES = (
    "Maya", "Jon", "Lena", "Raj", "Aisha", "Tom", "Elena", "Marcus", "Sofia", "Omar", "Grace", "Dev", "Priya",
    "Lucas", "Hana", "Kofi", "Ines", "Mateo", "Yuki", "Noah", "Amara", "Felix", "Leila", "Arjun", "Clara", "Tariq",
    "Nadia", "Erik", "Zoe", "Samir", "Ingrid", "Diego", "Mei", "Oscar", "Fatima", "Hugo", "Anya", "Kwame", "Lucia",
    "Ravi", "Sara", "Tobias", "Nora", "Emeka", "Julia", "Kenji", "Rosa", "Bilal", "Chloe", "Andrei", "Imani", "Pablo",
    "Astrid", "Hamza", "Vera", "Jun", "Olga", "Malik", "Alma", "Ivan", "Keiko", "Luca", "Zara", "Tariku", "Beatriz",
    "Kai", "Sanna", "Ayo", "Greta", "Farid", "Mina", "Leon", "Aditi", "Bruno", "Selin", "Teodor", "Nia", "Rafael",
    "Yara", "Stefan", "Layla", "Hiro", "Marta", "Kiran", "Elif", "Jonas", "Amani", "Paulo", "Sunita", "Emil", "Lin",
    "Chidi", "Wanda", "Niko", "Esra", "Dario", "Anika", "Ruben", "Saoirse", "Viktor",
)
LAST_NAMES = (
    "Chen", "Park", "Ortiz", "Iyer", "Khan", "Becker", "Rossi", "Reed", "Marin", "Haddad", "Liu", "Patel", "Nair",
    "Silva", "Tanaka", "Mensah", "Costa", "Garcia", "Sato", "Fischer", "Okafor", "Novak", "Haddadi", "Sharma",
    "Dubois", "Rahman", "Petrova", "Larsen", "Moreau", "Aziz", "Berg", "Alvarez", "Wang", "Nilsson", "Yilmaz",
    "Romero", "Kowalski", "Asante", "Ferreira", "Gupta", "Lindqvist", "Schmidt", "Ivanova", "Adeyemi", "Kim",
    "Murphy", "Santos", "Kaur", "Hoffmann", "Abe", "Popescu", "Mwangi", "Jansen", "Lopez", "Cohen", "Ali", "Morales",
    "Nakamura", "Owusu", "Horvat", "Bianchi", "Suzuki", "Andersen", "Reyes", "Demir", "Keller", "Mendes", "Ito",
    "Koch", "Osei", "Varga", "Rinaldi", "Hughes", "Zhang", "Eriksen", "Ncube", "Vasquez", "Yamada", "Bauer", "Karimi",
    "Sousa", "Lund", "Brennan", "Takahashi", "Walsh", "Ahmed", "Novotny", "Quinn",
)
COMPANIES = (
    ("Acme", "acme"), ("Brightline", "brightline"), ("Quillpoint", "quillpoint"), ("Northwind", "northwind"),
    ("Fernhill", "fernhill"), ("Lumio", "lumio"), ("Corvid Labs", "corvid"), ("Tidewater", "tidewater"),
    ("Helix Works", "helixworks"), ("Orbitale", "orbitale"), ("Kestrel", "kestrel"), ("Parcelly", "parcelly"),
    ("Mosaic Health", "mosaichealth"), ("Granite Pay", "granitepay"), ("Veldt", "veldt"), ("Sundial", "sundial"),
    ("Ironbark", "ironbark"), ("Pinecone AI", "pinecone-ai"), ("Riverstone", "riverstone"),
    ("Zephyr Cloud", "zephyr"), ("Atlas Freight", "atlasfreight"), ("Nimbus Retail", "nimbusretail"),
    ("Cobalt Insure", "cobalt"), ("Meridian Bank", "meridian"), ("Larkspur", "larkspur"),
    ("Tessellate", "tessellate"),
    ("Obsidian Health", "obsidian"), ("Wavecrest", "wavecrest"), ("Foxglove", "foxglove"), ("Marlin Pay", "marlinpay"),
    ("Copperleaf", "copperleaf"), ("Halcyon Air", "halcyonair"), ("Nettle", "nettle"), ("Bramble Foods", "bramble"),
    ("Summit Ledger", "summitledger"), ("Driftwood", "driftwood"), ("Lattice Labs", "latticelabs"), ("Quokka", "quokka"),
)
# What each company does: used in the system prompt"s context.
BUSINESSES = (
    "a payments platform", "an online grocery service", "a logistics marketplace", "a B2B analytics product",
    "a telehealth service", "a travel booking site", "a developer cloud", "an insurance platform",
    "a food delivery app", "a subscription billing service", "a retail bank app", "a learning platform",
)
TEAMS = (
    ("sre", "SRE"), ("payments", "Payments"), ("search", "Search"), ("growth", "Growth"), ("platform", "Platform"),
    ("identity", "Identity"), ("data", "Data"), ("mobile", "Mobile"), ("checkout", "Checkout"),
    ("billing", "Billing"), ("support", "Support"), ("security", "Security"), ("infra", "Infrastructure"),
    ("catalog", "Catalog"), ("notify", "Notifications"), ("finance", "Finance"), ("sales", "Sales"),
    ("legal", "Legal"), ("people", "People Ops"), ("design", "Design"), ("ml", "Machine Learning"),
    ("logistics", "Logistics"),
    ("fraud", "Fraud"), ("partners", "Partnerships"), ("web", "Web"), ("devex", "Developer Experience"),
    ("reliability", "Reliability"), ("pricing", "Pricing"), ("ops", "Operations"), ("analytics", "Analytics"),
)
ROLES = {
    "lead": ("Team Lead", "Engineering Manager", "Head of {team}", "{team} Lead"),
    "member": ("{team} Engineer", "Senior {team} Engineer", "Software Engineer", "Staff Engineer", "Analyst", "Product Manager", "{team} Specialist", "Site Reliability Engineer", "Backend Engineer"),
}
# (service id stem, display name, config keys with a healthy value)
SERVICES = (
    ("payments", "Payments API", {"db_pool_size": 50, "timeout_ms": 2000}),
    ("gateway", "API Gateway", {"upstream_timeout_ms": 5000, "max_body_kb": 512}),
    ("search", "Search Service", {"cache_ttl_s": 300, "max_results": 100}),
    ("auth", "Auth Service", {"token_ttl_s": 3600, "max_sessions": 20}),
    ("orders", "Orders Service", {"db_pool_size": 40, "retry_budget": 3}),
    ("inventory", "Inventory Service", {"sync_interval_s": 60, "batch_size": 500}),
    ("notifications", "Notification Service", {"rate_limit_rps": 200, "retry_budget": 5}),
    ("billing", "Billing Engine", {"invoice_batch": 250, "timeout_ms": 3000}),
    ("catalog", "Catalog API", {"cache_ttl_s": 600, "page_size": 50}),
    ("checkout", "Checkout Service", {"timeout_ms": 2500, "max_cart_items": 100}),
    ("profile", "Profile Service", {"db_pool_size": 30, "cache_ttl_s": 120}),
    ("shipping", "Shipping Rates", {"upstream_timeout_ms": 4000, "rate_limit_rps": 150}),
    ("ledger", "Ledger Service", {"db_pool_size": 60, "write_quorum": 2}),
    ("pricing", "Pricing Engine", {"cache_ttl_s": 900, "timeout_ms": 1500}),
    ("media", "Media Resizer", {"worker_count": 16, "max_body_kb": 8192}),
    ("reports", "Reporting API", {"query_timeout_s": 30, "max_rows": 10000}),
    ("webhooks", "Webhook Dispatcher", {"rate_limit_rps": 100, "retry_budget": 8}),
    ("recs", "Recommendations", {"model_timeout_ms": 800, "cache_ttl_s": 240}),
    ("fraud", "Fraud Scoring", {"model_timeout_ms": 400, "threshold_pct": 85}),
    ("email", "Email Sender", {"rate_limit_rps": 50, "batch_size": 100}),
    ("sessions", "Session Store", {"db_pool_size": 25, "token_ttl_s": 1800}),
    ("geo", "Geo Lookup", {"cache_ttl_s": 1200, "timeout_ms": 600}),
    ("loyalty", "Loyalty Points", {"db_pool_size": 20, "retry_budget": 4}),
    ("quotes", "Quote Builder", {"timeout_ms": 2200, "max_rows": 500}),
    ("refunds", "Refund Processor", {"retry_budget": 6, "timeout_ms": 4500}),
    ("tax", "Tax Calculator", {"cache_ttl_s": 3600, "timeout_ms": 900}),
    ("uploads", "Upload Service", {"max_body_kb": 20480, "worker_count": 12}),
    ("audit", "Audit Log", {"batch_size": 1000, "write_quorum": 3}),
    ("chatbot", "Support Chatbot", {"model_timeout_ms": 1200, "rate_limit_rps": 80}),
    ("scheduler", "Job Scheduler", {"worker_count": 24, "retry_budget": 5}),
    ("invoices", "Invoice Renderer", {"worker_count": 8, "timeout_ms": 6000}),
    ("feeds", "Partner Feeds", {"sync_interval_s": 300, "rate_limit_rps": 40}),
    ("kyc", "KYC Checks", {"upstream_timeout_ms": 7000, "retry_budget": 2}),
    ("metrics", "Metrics Ingest", {"batch_size": 5000, "db_pool_size": 80}),
    ("cart", "Cart Service", {"cache_ttl_s": 180, "db_pool_size": 35}),
    ("routing", "Delivery Routing", {"model_timeout_ms": 1500, "worker_count": 20}),
)
FLAGS = (
    "new_checkout", "smart_retry", "dark_mode_api", "fast_search", "v2_pricing", "async_invoices", "one_click_pay",
    "bulk_export", "new_onboarding", "edge_cache", "ml_ranking", "instant_refunds", "split_shipping", "passkeys",
)
# (zone, label): zones spread over the working day so overlaps vary.
TIMEZONES = (
    ("Europe/Madrid", "Madrid"), ("Europe/London", "London"), ("Europe/Berlin", "Berlin"),
    ("Europe/Warsaw", "Warsaw"), ("Europe/Lisbon", "Lisbon"), ("Europe/Helsinki", "Helsinki"),
    ("America/New_York", "New York"), ("America/Toronto", "Toronto"), ("America/Chicago", "Chicago"),
    ("America/Sao_Paulo", "São Paulo"), ("Asia/Kolkata", "Bengaluru"), ("Asia/Dubai", "Dubai"),
    ("Africa/Lagos", "Lagos"), ("Africa/Nairobi", "Nairobi"), ("Asia/Singapore", "Singapore"), ("UTC", "UTC"),
)
PROJECTS = (
    "Nimbus", "Atlas", "Orion", "Kepler", "Falcon", "Juniper", "Cascade", "Lighthouse", "Meridian", "Aurora",
    "Bluebird", "Quartz", "Sequoia", "Tundra", "Horizon", "Mistral", "Pebble", "Ember", "Summit", "Delta",
    "Andromeda", "Bellwether", "Catalyst", "Dragonfly", "Equinox", "Firefly", "Gulliver", "Hyperion", "Icarus",
    "Jubilee", "Kodiak", "Lodestar", "Monsoon", "Nebula", "Obelisk", "Paragon", "Quasar", "Riptide", "Sirocco",
    "Trident", "Vanguard", "Whirlwind", "Xylophone", "Yosemite", "Stratus", "Boreas", "Calypso", "Dynamo",
    "Everest", "Fathom", "Gemini", "Halyard", "Ironclad", "Jetstream", "Keystone", "Labyrinth", "Magellan",
    "Nautilus", "Oberon", "Polaris", "Quicksilver", "Rubicon", "Solstice", "Tempest", "Umbrella", "Vortex",
    "Windmill", "Zodiac", "Albatross", "Bastion", "Chinook", "Drakkar", "Escarpment", "Flagship", "Gossamer",
    "Hourglass", "Inkwell", "Jackdaw", "Kaleidoscope", "Lantern",
)
CITIES = (
    "Lisbon", "Berlin", "Madrid", "London", "Warsaw", "Toronto", "Austin", "Bengaluru", "Nairobi", "Singapore",
    "Dublin", "Prague", "Lagos", "São Paulo", "Helsinki", "Dubai", "Chicago", "Milan", "Vienna", "Oslo",
    "Accra", "Bogotá", "Copenhagen", "Denver", "Edinburgh", "Frankfurt", "Geneva", "Hamburg", "Istanbul",
    "Jakarta", "Kraków", "Lyon", "Montreal", "Nagoya", "Osaka", "Porto", "Quebec", "Rotterdam", "Seoul",
    "Tartu", "Utrecht", "Valencia", "Windhoek", "Yokohama", "Zagreb", "Antwerp", "Brisbane", "Cape Town",
    "Doha", "Gdańsk", "Hanoi", "Kyiv", "Lima", "Manila", "Nantes", "Riga", "Seville", "Tbilisi", "Vilnius",
    "Zurich",
)
# Customers: a stem (unique, no stem inside another name of these pools, so a company's first word is its mail
# domain) and a line of business. 121 names: a student cannot learn the names as a closed list, only to copy them.
_CUSTOMER_STEMS = (
    "Okapi", "Lumina", "Harbor", "Vantage", "Bluefin", "Crescent", "Pioneer", "Redwood", "Saffron", "Tandem",
    "Umbra", "Willow", "Zenith", "Aster", "Birch", "Cedar", "Dune", "Elm", "Alder", "Basalt", "Cinder", "Dahlia",
    "Egret", "Fjord", "Garnet", "Heron", "Indigo", "Jasper", "Kelp", "Lotus", "Magnolia", "Narwhal", "Opal",
    "Puffin", "Quince", "Raven", "Sable", "Thistle", "Ursa", "Verbena", "Walrus", "Yarrow", "Zircon", "Acorn",
    "Bison", "Coral", "Dove", "Ermine", "Finch", "Gecko", "Hazel", "Ibis", "Mangrove", "Koala", "Lynx", "Maple",
    "Sedge", "Oriole", "Pelican", "Quail", "Rowan", "Spruce", "Tulip", "Vireo", "Wren", "Yucca", "Amber", "Bramwell",
    "Clover", "Dunmore", "Marram", "Fennel", "Glacier", "Hollow", "Iris", "Jade", "Kiwi", "Larch", "Moss",
    "Nectar", "Orchid", "Poplar", "Quarry", "Reef", "Sorrel", "Tamarisk", "Umber", "Saltmarsh", "Wisteria", "Yew",
    "Azalea", "Beacon", "Cypress", "Delphi", "Eucalypt", "Feldspar", "Gannet", "Hickory", "Inlet", "Jetty", "Kingfisher",
    "Lagoon", "Mistletoe", "Nutmeg", "Oyster", "Plover", "Rosemary", "Sequin", "Shrike", "Valerian", "Whitlock",
    "Aurochs", "Bittern", "Chestnut", "Drover", "Estuary", "Foxtail", "Grebe", "Hornbill", "Ironwood", "Curlew",
)
_CUSTOMER_KINDS = (
    "Logistics", "Clinics", "Foods", "Air", "Retail", "Bank", "Schools", "Energy", "Hotels", "Bikes", "Studios",
    "Pharma", "Motors", "Telecom", "Legal", "Homes", "Travel", "Insurance", "Media", "Farms", "Dental", "Freight",
    "Robotics", "Textiles", "Marine", "Games", "Books", "Coffee", "Solar", "Water", "Biotech", "Fitness", "Toys",
    "Printing", "Outdoor", "Optics",
)
CUSTOMERS = tuple(f"{stem} {kind}" for stem, kind in zip(_CUSTOMER_STEMS, _CUSTOMER_KINDS * 4, strict=False))
VENDORS = (
    ("TechDigest", "newsletter@techdigest.example"), ("CloudWeekly", "news@cloudweekly.example"),
    ("PagerBell", "noreply@pagerbell.example"), ("Expensio", "notifications@expensio.example"),
    ("TravelDesk", "noreply@traveldesk.example"), ("CI Runner", "builds@ci-runner.example"),
    ("Design Daily", "digest@designdaily.example"), ("HR Portal", "noreply@hrportal.example"),
    ("StatusHub", "alerts@statushub.example"), ("DataCon", "events@datacon.example"),
)
AUTOMATIONS = (
    "Reconciler", "Autopilot", "Shipwright", "Cronus", "Janitor", "Conductor", "Tidybot", "Relay",
)
MEETING_TOPICS = (
    "roadmap review", "design review", "quarterly planning", "vendor sync", "incident retro", "budget check-in",
    "hiring debrief", "launch readiness", "API review", "customer escalation", "architecture sync", "OKR review",
)
# fmt: on
