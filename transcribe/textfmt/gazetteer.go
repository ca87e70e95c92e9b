package textfmt

import "strings"

// The gazetteer of proper nouns the Casing stage capitalises. Entries are
// lower case; multi-word entries are matched as phrases (longest first).
// Given names that are also common words ("will", "mark", "bill", "rose",
// "grace", "hope", "jack", "frank", ...) and places that are ("turkey",
// "nice", "reading", "mobile") are left out on purpose: capitalising
// "will" in "I will go" is worse than leaving "Will" lower case.
// "march" and "may" are capitalised only next to a number ("May 5th",
// "in March 2024"), see Casing.

const givenNames = `aaron abigail adam adrian aisha alan albert alex alexander alexandra alexis alice
alicia allison amanda amelia amy andrea andrew angela anna anne anthony antonio ashley austin
barbara benjamin beth betty brandon brenda brian brittany caleb cameron carl carlos caroline
catherine charles charlotte chloe christian christina christine christopher cynthia daniel david
deborah debra denise dennis diana diane donald donna dorothy douglas dylan edward eleanor elizabeth
ella emily emma eric ethan eugene evelyn fernando fiona gabriel gary george gerald gloria gregory
hannah harold harry heather helen henry isaac isabella jacob james janet janice jason jeffrey
jennifer jeremy jessica joan joe john jonathan jose joseph joshua joyce juan judith julia julie
justin karen katherine kathleen kathryn kayla keith kelly kenneth kevin kimberly kyle larry laura
lauren linda lisa logan louis lucas luis madison margaret maria marie marilyn martha mary matthew
megan melissa michael michelle mohammed muhammad nancy natalie nathan nicholas nicole noah olivia
pamela patricia paul peter philip priya rachel ralph raymond rebecca richard robert ronald
ruth ryan samantha samuel sandra sara sarah scott sean sharon shirley sophia stephanie stephen
steven susan teresa thomas timothy tyler victoria vincent virginia walter wayne william zachary
ahmed ali anil chen daniela elena fatima hiroshi ivan javier jorge kenji lucia mei mikhail nadia
olga omar pablo pedro rahul raj ravi sofia sergei wei yuki zhang`

const usStates = `alabama alaska arizona arkansas california colorado connecticut delaware florida
georgia hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts
michigan minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania
tennessee texas utah vermont virginia washington wisconsin wyoming
new_hampshire new_jersey new_mexico new_york north_carolina north_dakota rhode_island
south_carolina south_dakota west_virginia`

const countries = `afghanistan albania algeria argentina armenia australia austria azerbaijan bangladesh
belarus belgium bolivia bosnia brazil bulgaria cambodia cameroon canada chile china colombia croatia
cuba cyprus denmark ecuador egypt england estonia ethiopia finland france germany ghana greece
guatemala haiti honduras hungary iceland india indonesia iran iraq ireland israel italy jamaica
japan jordan kazakhstan kenya korea kuwait laos latvia lebanon libya lithuania luxembourg madagascar
malaysia mexico mongolia morocco mozambique myanmar nepal netherlands nicaragua nigeria norway
pakistan panama paraguay peru philippines poland portugal qatar romania russia rwanda scotland
senegal serbia singapore slovakia slovenia somalia spain sudan sweden switzerland syria taiwan
tanzania thailand tunisia uganda ukraine uruguay uzbekistan venezuela vietnam wales yemen zambia
zimbabwe america europe asia africa antarctica
united_states united_kingdom south_africa south_korea north_korea new_zealand saudi_arabia
sri_lanka costa_rica puerto_rico el_salvador czech_republic dominican_republic
american british english french german spanish italian chinese japanese canadian mexican indian
russian european african asian australian irish scottish`

const cities = `london paris tokyo berlin madrid rome moscow beijing shanghai mumbai delhi sydney
melbourne toronto vancouver montreal chicago boston houston dallas austin seattle denver atlanta
miami philadelphia phoenix detroit portland baltimore nashville memphis cleveland pittsburgh
cincinnati minneapolis orlando sacramento amsterdam brussels vienna prague warsaw budapest dublin
lisbon barcelona munich istanbul cairo dubai singapore bangkok seoul manila jakarta lagos nairobi
johannesburg
new_york_city los_angeles san_francisco san_diego san_jose san_antonio las_vegas new_orleans
salt_lake_city kansas_city st_louis oklahoma_city hong_kong mexico_city rio_de_janeiro
sao_paulo buenos_aires tel_aviv cape_town`

const calendar = `january february april june july august september october november december
monday tuesday wednesday thursday friday saturday sunday christmas easter thanksgiving`

// gazetteer maps a phrase (words joined by spaces) to its capitalised form;
// gazetteerMax is the longest phrase in words.
var gazetteer, gazetteerMax = buildGazetteer(givenNames, usStates, countries, cities, calendar)

func buildGazetteer(lists ...string) (map[string]string, int) {
	m := map[string]string{}
	max := 1
	for _, l := range lists {
		for _, e := range strings.Fields(l) {
			words := strings.Split(e, "_")
			if len(words) > max {
				max = len(words)
			}
			caps := make([]string, len(words))
			for i, w := range words {
				switch w {
				case "de", "of", "the":
					caps[i] = w
				default:
					caps[i] = capitalize(w)
				}
			}
			m[strings.Join(words, " ")] = strings.Join(caps, " ")
		}
	}
	return m, max
}
