package pii

import "strings"

// Curated gazetteers shipped with the package. Entries are lower case;
// words of a multi-word entry are joined by '_'. A leading '?' marks an
// ambiguous entry that is only taken with a context cue (see ambiguous).

// givenNames are common given names (US census and international). Names
// that are common English words are in ambiguousNames instead.
const givenNames = `aaron abby abigail adam adrian ahmed aidan aisha alan albert alberto alec alex
alexa alexander alexandra alexis alfred ali alice alicia alison allen allison alvin amanda amber
amelia amir amit amy ana andre andrea andrew andy angela angelica angie anil anita ann anna annie
anne anthony antonio arjun arnold arthur ashley audrey austin ava barbara beatrice becky ben
benjamin bernard beth betty beverly bianca bobby bonnie brad bradley brandon brenda brent brett
brian brianna bridget brittany brooke bruce bryan caitlin caleb calvin cameron camila carl carla
carlos carmen carol caroline carolyn carrie casey catherine cathy charles charlie charlotte chen
cheryl chloe chris christian christina christine christopher cindy claire clara claude colin
connor craig cristina crystal curtis cynthia daisy dale dan dana daniel daniela danielle danny
darius darren dave david dean deborah debbie debra denise dennis derek diana diane diego dmitri
dominic donald donna doris dorothy douglas dylan eddie edgar edith edward edwin elaine eleanor
elena eli elijah elizabeth ella ellen elliot emily emma eric erica erik erin ethan eugene eva
evan evelyn fatima felix fernando fiona francesca francis francisco frederick gabriel gabriella
gail gary gavin gemma george gerald gina giovanni gloria gordon grant gregory hailey haley
hannah harold harris harrison harry hassan heather hector helen henry hiroshi hugo ian irene
isaac isabel isabella isaiah ivan jack jackie jackson jacob jacqueline jaime jake james jamie
jane janet janice jared jasmine jason javier jean jeff jeffrey jenna jennifer jenny jeremy
jerome jerry jesse jessica jill jim jimmy joan joanna joe joel john johnny jon jonathan jordan
jorge jose joseph josephine joshua juan judith judy julia julian julie justin kamala karen karl
kate katherine kathleen kathryn kathy katie kayla keith kelly kelvin ken kenji kenneth kevin
kim kimberly kristen kristin kyle laila lana larry laura lauren lawrence leah lena leo leon
leonard leslie liam lillian lily linda lindsay lisa logan lois lorenzo louis louise lucas lucia
lucy luis luke lydia lynn madeline madison maggie manuel marco marcus margaret maria marie
marilyn mario marisa marjorie marlene martha martin marvin mary maryam mason matthew maureen
max maya megan mei melanie melissa mia michael michele michelle miguel mikhail mila mildred
miranda mohammed molly monica muhammad nadia nancy naomi natalie natasha nathan nathaniel neil
nicholas nick nicole nina noah noel nora norma olga oliver olivia omar oscar owen pablo pamela
patricia patrick paula pauline pedro peggy peter philip phillip phyllis priya rachel rafael
rahul raj ralph ramon randy raul ravi raymond rebecca regina renee ricardo richard rick ricky
rita robert roberto robin rodney roger roland ronald rosa ruby russell ruth ryan sabrina sally
sam samantha samuel sandra sanjay sara sarah scott sean sebastian sergei sergio seth shannon
sharon sheila shirley simon sofia sophia sophie stacy stanley stella stephanie stephen steve
steven stuart susan suzanne sylvia tamara tammy tanya tara ted teresa terry theodore theresa
thomas tiffany tim timothy tina todd tom tommy tony tracy travis trevor troy tyler valerie
vanessa vera veronica vicki victor victoria vincent violet virginia vivian walter wanda wayne
wei wendy wesley william willie xavier yolanda yuki yusuf zachary zoe zhang`

// ambiguousNames are given names that are also common words; they count as
// names only after a naming cue, before a known surname, or when written
// capitalised away from the start of a sentence.
const ambiguousNames = `april art bill bob carol chance chase cliff dawn dean destiny don
drew faith frank gene grace guy hank hope iris ivy jay jewel joy june mark max may mike miles
pat peg penny ray reed rose rusty sandy skip summer sunny ted will wade`

// surnames are common family names (US census top names and others).
const surnames = `abbott acosta aguilar andrews armstrong arnold austin banerjee becker berg
bishop blake bradley brennan burke burns byrne caldwell carlson carroll chang chapman chaudhry
cho choi clarke cohen cunningham daniels das dawson delgado dunn duncan erickson estrada fleming
fletcher fox francis freeman fuller garza gibson gill goldberg greene hansen hanson harper hart
hawkins herrera hoffman holmes hopkins hudson hunt hussain jacobs jensen kaur kaufman keller khan
klein koch kowalski kramer larson lawrence le lin liu lynch mahmoud malik mann marshall mcCarthy
mccarthy medina mehta mendez meyers molina montgomery moreno murphy nakamura novak obrien
o'brien o'connor oconnor olsen olson ortega pham porter quinn ramos reddy reid rios rojas romero
rose ruiz ryan salazar sandoval santos schneider schultz schwartz sharp shaw silva sims soto
spencer stephens stone suzuki tanaka tran tucker vargas vasquez vaughn wagner walsh warren weber
weiss wells west wheeler wolfe yadav zhou adams ahmed alexander ali allen alvarez anderson bailey baker barnes bell bennett
brooks brown bryant butler campbell carter castillo castro chavez chen clark cole coleman collins
cook cooper cox cruz davis diaz dixon edwards ellis evans fernandez fisher flores ford foster
garcia gomez gonzales gonzalez gordon graham gray green griffin gupta gutierrez hall hamilton
harris hayes henderson hernandez hill howard hughes jackson james jenkins jimenez johnson jones
jordan kelly kennedy khan kim king kumar lee lewis li long lopez martin martinez mcdonald
mendoza meyer miller mitchell moore morales morgan morris murphy murray myers nelson nguyen
ortiz owens parker patel perez perry peterson phillips powell price ramirez reed reyes
richardson rivera roberts robinson rodriguez rogers ross russell ruiz sanchez sanders schmidt
scott shah sharma simmons singh smith stewart sullivan taylor thomas thompson torres turner
walker wallace wang ward washington watson webb white williams wilson wong wood wright wu
yamamoto yang young zhang zimmerman`

// titles precede a name ("Dr. Patel", "Mrs. Smith").
const titles = `mr mrs ms miss dr doctor prof professor sir madam mister officer judge senator
president captain nurse reverend father`

// countries, US states and large cities; multi-word entries joined by '_'.
// regions are countries, continents and US states: a region after a
// place belongs to it ("Chicago, Illinois").
const regions = `afghanistan albania algeria argentina armenia australia austria azerbaijan
bahamas bangladesh belarus belgium bolivia bosnia brazil bulgaria cambodia cameroon canada chile
china colombia croatia cuba cyprus denmark ecuador egypt england estonia ethiopia finland france
germany ghana greece guatemala haiti honduras hungary iceland india indonesia iran iraq ireland
israel italy jamaica japan jordan kazakhstan kenya korea kuwait laos latvia lebanon libya
lithuania luxembourg madagascar malaysia mexico mongolia morocco mozambique myanmar nepal
netherlands nicaragua nigeria norway pakistan panama paraguay peru philippines poland portugal
qatar romania russia rwanda scotland senegal serbia singapore slovakia slovenia somalia spain
sudan sweden switzerland syria taiwan tanzania thailand tunisia uganda ukraine uruguay
uzbekistan venezuela vietnam wales yemen zambia zimbabwe america europe asia africa
united_states united_states_of_america united_kingdom south_africa south_korea north_korea
new_zealand saudi_arabia sri_lanka costa_rica puerto_rico el_salvador czech_republic
dominican_republic u.s. usa uk
alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii
idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan
minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania
tennessee texas utah vermont virginia washington wisconsin wyoming new_hampshire new_jersey
new_mexico new_york north_carolina north_dakota rhode_island south_carolina south_dakota
west_virginia`

// locations are the place names of the gazetteer: regions and cities.
const locations = regions + "\n" + cities

// cities are large cities and other places below a region.
const cities = `london paris tokyo berlin madrid rome moscow beijing shanghai mumbai delhi sydney melbourne
toronto vancouver montreal ottawa chicago boston houston dallas austin seattle denver atlanta
miami philadelphia phoenix detroit portland baltimore nashville memphis cleveland pittsburgh
cincinnati minneapolis orlando sacramento oakland tampa charlotte raleigh richmond milwaukee
indianapolis columbus louisville albuquerque tucson omaha honolulu anchorage brooklyn manhattan
queens springfield amsterdam brussels vienna prague warsaw budapest dublin lisbon barcelona
munich frankfurt hamburg milan naples venice florence athens stockholm oslo copenhagen helsinki
istanbul cairo dubai karachi lahore dhaka bangkok seoul manila jakarta lagos nairobi
johannesburg lima bogota santiago havana kyoto osaka edinburgh manchester liverpool glasgow
new_york_city los_angeles san_francisco san_diego san_jose san_antonio las_vegas new_orleans
salt_lake_city kansas_city st._louis saint_louis oklahoma_city hong_kong mexico_city
rio_de_janeiro sao_paulo buenos_aires tel_aviv cape_town washington_d.c. silicon_valley`

// ambiguousPlaces are places that are also common words or names; they
// count only after a place cue ("in", "from", "to", "live in", ...).
const ambiguousPlaces = `turkey chad nice reading mobile jersey china phoenix georgia jordan
austin washington victoria charlotte florence virginia`

// nationalities; those also naming a language are in bothLangNat.
const nationalities = `american americans canadian canadians mexican mexicans brazilian argentinian
colombian peruvian chilean cuban british irish scottish welsh australian indian pakistani
bangladeshi nigerian kenyan ethiopian egyptian moroccan south_african israeli iranian iraqi
syrian lebanese saudi afghan filipino vietnamese thai indonesian malaysian singaporean
korean belgian swiss austrian swedish norwegian danish finnish polish ukrainian czech hungarian
romanian bulgarian serbian croatian greek turkish european african asian latino latina
hispanic`

// languages only.
const languages = `english mandarin cantonese hindi urdu bengali punjabi tamil telugu swahili
yoruba zulu latin esperanto tagalog farsi persian arabic hebrew sign_language
american_sign_language`

// bothLangNat name a nationality and a language; context decides.
const bothLangNat = `french german spanish italian portuguese russian chinese japanese dutch greek
polish korean turkish vietnamese thai ukrainian swedish`

const religions = `christian christians christianity catholic catholicism protestant protestants
methodist baptist lutheran presbyterian evangelical mormon orthodox muslim muslims islam
islamic jewish jew jews judaism hindu hindus hinduism buddhist buddhists buddhism sikh sikhism
jain atheist atheists agnostic shinto taoist pagan quaker`

const occupations = `accountant actor actress architect artist attorney baker banker barber
bartender biologist bookkeeper builder butcher carpenter cashier chef chemist cleaner clerk
coach consultant cook counselor dancer dentist designer detective developer dietitian doctor
driver economist editor electrician engineer farmer firefighter fisherman florist gardener
geologist hairdresser historian housekeeper janitor journalist judge lawyer lecturer librarian
lifeguard machinist manager mechanic midwife miner musician nurse nanny optician painter
paralegal paramedic pharmacist photographer physician physicist physiotherapist pilot plumber
poet police_officer policeman policewoman politician postman principal professor programmer
psychiatrist psychologist receptionist reporter researcher salesman saleswoman scientist
secretary singer soldier software_engineer software_developer surgeon tailor teacher
technician therapist translator truck_driver tutor veterinarian waiter waitress welder writer
accountants doctors engineers lawyers nurses teachers data_scientist project_manager
real_estate_agent social_worker flight_attendant web_developer cardiologist dermatologist
pediatrician radiologist`

const organizations = `google apple microsoft amazon facebook meta netflix tesla ibm intel oracle
samsung sony toyota honda ford walmart target costco starbucks mcdonald's mcdonalds nike adidas
coca-cola pepsi boeing airbus disney verizon comcast uber lyft airbnb paypal visa mastercard
spotify twitter linkedin youtube instagram tiktok nasa fbi cia irs nato unicef unesco fda cdc
who_health_organization world_health_organization united_nations red_cross
harvard stanford yale princeton mit oxford cambridge berkeley
bank_of_america wells_fargo jpmorgan chase_bank citibank goldman_sachs morgan_stanley
american_express general_motors general_electric johnson_&_johnson johnson_and_johnson pfizer
moderna kaiser_permanente mayo_clinic blue_cross home_depot best_buy fedex dhl
southwest_airlines delta_airlines united_airlines american_airlines new_york_times
washington_post bbc cnn nbc cbs abc_news fox_news salesforce nvidia adobe cisco dell hp
accenture deloitte kpmg pwc mckinsey exxon chevron shell bp
unitedhealth unitedhealthcare aetna cigna humana anthem medicare_advantage walgreens cvs
rite_aid kroger safeway whole_foods trader_joe's ikea lowe's macy's nordstrom h&m
toyota_motor volkswagen bmw mercedes-benz hyundai kia nissan subaru general_mills kraft nestle
unilever procter_&_gamble colgate johnson_controls siemens philips intel_corporation qualcomm
amd micron broadcom ibm_corporation hewlett-packard lenovo asus acer xerox dropbox
shopify etsy ebay doordash grubhub instacart robinhood coinbase venmo
bank_of_new_york capital_one us_bank pnc td_bank hsbc barclays santander ubs credit_suisse
charles_schwab blackrock state_farm allstate geico progressive_insurance
liberty_mutual usps amtrak greyhound peace_corps salvation_army ymca nfl nba mlb nhl fifa`

const drugs = `acetaminophen tylenol ibuprofen advil motrin aspirin naproxen aleve paracetamol
amoxicillin penicillin azithromycin doxycycline ciprofloxacin cephalexin metformin insulin
lisinopril amlodipine atorvastatin lipitor simvastatin rosuvastatin crestor losartan
metoprolol hydrochlorothiazide furosemide warfarin coumadin eliquis heparin clopidogrel
plavix omeprazole prilosec pantoprazole ranitidine levothyroxine synthroid prednisone
albuterol montelukast gabapentin sertraline zoloft fluoxetine prozac citalopram escitalopram
lexapro bupropion wellbutrin trazodone alprazolam xanax lorazepam ativan diazepam valium
clonazepam klonopin zolpidem ambien oxycodone hydrocodone vicodin percocet morphine codeine
fentanyl tramadol methadone adderall ritalin methylphenidate lithium benadryl
diphenhydramine loratadine claritin cetirizine zyrtec epinephrine epipen viagra ozempic
semaglutide humira antibiotics antibiotic antidepressants penicillin naloxone narcan
methotrexate tamoxifen chemotherapy_drugs
amitriptyline duloxetine cymbalta venlafaxine effexor paroxetine paxil quetiapine seroquel
aripiprazole abilify risperidone olanzapine buspirone hydroxyzine cyclobenzaprine meloxicam
celecoxib celebrex diclofenac oxycontin suboxone buprenorphine naltrexone glipizide
januvia jardiance trulicity mounjaro tirzepatide wegovy spironolactone carvedilol propranolol
atenolol diltiazem digoxin nitroglycerin xarelto pradaxa famotidine pepcid nexium esomeprazole
allegra fexofenadine flonase fluticasone budesonide singulair tamiflu valacyclovir acyclovir
fluconazole metronidazole clindamycin nitrofurantoin bactrim keflex zithromax augmentin
levaquin prednisolone dexamethasone hydrocortisone estradiol progesterone testosterone
finasteride tamsulosin sildenafil cialis tadalafil melatonin ketamine`

const medicalConditions = `diabetes asthma hypertension cancer depression anxiety arthritis
alzheimer's alzheimers dementia parkinson's parkinsons epilepsy migraine migraines copd
pneumonia bronchitis tuberculosis influenza flu covid covid-19 coronavirus hiv aids hepatitis
obesity anemia leukemia lymphoma melanoma stroke autism adhd bipolar_disorder schizophrenia
ptsd ocd insomnia eczema psoriasis lupus fibromyalgia osteoporosis scoliosis glaucoma
cataracts allergies allergy celiac_disease crohn's_disease heart_disease heart_attack
heart_failure kidney_disease kidney_stones high_blood_pressure high_cholesterol
type_two_diabetes type_2_diabetes type_one_diabetes type_1_diabetes multiple_sclerosis
breast_cancer lung_cancer prostate_cancer skin_cancer sleep_apnea chickenpox measles mumps
strep_throat sinus_infection ear_infection urinary_tract_infection diarrhea nausea fever
cold_sores shingles gout thyroid_disease hypothyroidism hyperthyroidism sepsis
appendicitis tinnitus vertigo
angina arrhythmia atrial_fibrillation cirrhosis colitis diverticulitis endometriosis
gastritis gerd acid_reflux hemophilia hernia hives hypoglycemia hyperglycemia jaundice
kidney_failure liver_disease malaria meningitis mononucleosis osteoarthritis pancreatitis
polio rheumatoid_arthritis rosacea sciatica sickle_cell_anemia sinusitis tonsillitis
ulcer ulcers cancer_of_the_lung panic_attacks panic_disorder eating_disorder anorexia
bulimia addiction alcoholism postpartum_depression seasonal_depression concussion_syndrome
long_covid covid_nineteen cerebral_palsy down_syndrome cystic_fibrosis spina_bifida
chronic_pain back_pain migraine_headaches heart_murmur blood_clot deep_vein_thrombosis
pulmonary_embolism aneurysm tumor tumors`

const medicalProcesses = `surgery chemotherapy radiation_therapy radiotherapy dialysis
physiotherapy physical_therapy mri ct_scan cat_scan x-ray x-rays xray x_ray x_rays ultrasound
mammogram colonoscopy endoscopy biopsy blood_test blood_tests blood_work vaccination
vaccine vaccinations transplant kidney_transplant heart_surgery bypass_surgery
knee_replacement hip_replacement appendectomy tonsillectomy c-section cesarean
angioplasty ekg ecg echocardiogram checkup check-up physical_exam root_canal
stitches blood_transfusion transfusion amputation anesthesia therapy counseling
rehab rehabilitation flu_shot booster_shot
pet_scan cat_scan spinal_tap lumbar_puncture pap_smear dental_cleaning cataract_surgery
lasik gastric_bypass hysterectomy mastectomy vasectomy appendix_surgery open_heart_surgery
pacemaker ivf in_vitro_fertilization ablation cardioversion intubation
sutures physical_therapy_sessions speech_therapy occupational_therapy psychotherapy
immunotherapy chemo mri_scan ultrasound_scan stress_test sleep_study`

const injuries = `fracture fractures fractured concussion sprain sprained strain bruise bruises
bruised whiplash laceration burn burns dislocated dislocation torn_ligament torn_acl
broken_arm broken_leg broken_wrist broken_ankle broken_nose broken_rib broken_ribs
broken_hip broken_bone broken_finger broken_foot sprained_ankle sprained_wrist
back_injury head_injury knee_injury spinal_injury gunshot_wound stab_wound black_eye`

const bloodTypes = `a_positive a_negative b_positive b_negative ab_positive ab_negative
o_positive o_negative a+ a- b+ b- ab+ ab- o+ o- type_a type_b type_ab type_o`

const zodiacSigns = `aries taurus gemini ?cancer ?leo virgo libra scorpio sagittarius
capricorn aquarius pisces`

const political = `democrat democrats democratic republican republicans gop libertarian
libertarians conservative conservatives liberal liberals progressive progressives socialist
socialists communist communists green_party labour_party tory tories ?independent
left-wing right-wing centrist`

const genderSexuality = `gay lesbian bisexual transgender trans non-binary nonbinary queer
asexual pansexual heterosexual homosexual ?straight cisgender ?male ?female genderfluid lgbt
lgbtq intersex`

const maritalStatus = `married divorced widowed widow widower ?separated engaged ?single
unmarried remarried`

const events = `christmas thanksgiving halloween easter hanukkah ramadan diwali passover
new_year's new_year's_eve new_year new_years valentine's_day independence_day memorial_day
labor_day super_bowl world_cup olympics olympic_games world_series oscars grammys
black_friday cyber_monday mardi_gras oktoberfest comic-con coachella march_madness
fourth_of_july st._patrick's_day saint_patrick's_day mother's_day father's_day`

// physicalAttributes are phrases describing a person's body.
const physicalAttributes = `blue_eyes brown_eyes green_eyes hazel_eyes gray_eyes grey_eyes
blond_hair blonde_hair brown_hair black_hair red_hair gray_hair grey_hair white_hair
curly_hair straight_hair bald tattoo tattoos birthmark freckles scar beard mustache
moustache overweight underweight left-handed right-handed`

// fileExts are extensions that make "name.ext" a filename.
const fileExts = `pdf doc docx xls xlsx csv txt rtf ppt pptx key pages jpg jpeg png gif bmp
tiff svg mp3 mp4 wav mov avi mkv zip tar gz rar 7z exe dmg iso json xml yaml yml html css js
py go java c cpp h sql db log md odt ods`

// tlds are the top-level domains accepted in bare web addresses.
const tlds = `com org net edu gov io co uk us ca de fr info biz ai app dev me tv ly au in jp
nz ie eu`

// commonWords are frequent English words that never start or continue a
// name found only by position (after "my name is").
const commonWords = `a about after again all also am an and any are as at back be because
been before being but by can could did do does doing done down each even ever every few for
from get gets getting go goes going gone good got had has have having he her here hers him
his how i if in into is it its just know like live lives made make many me more most much my
myself no not now of off on once one only or other our out over own please really right said
same say says see she should so some still such than that the their them then there these
they thing think this those through to too two under until up us very was way we well were
what when where which while who why will with would yes yet you your and call calling number
phone email address name named called born work working today tomorrow yesterday here there
thanks thank hello hi hey okay ok sure sorry speaking calling speak`

func fields(s string) []string { return strings.Fields(s) }
