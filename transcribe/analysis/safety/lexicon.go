package safety

// lexiconText is the weighted lexicon: one term per line,
//
//	label weight severity term words [!exclusion ...]
//
// weight is the evidence a mention gives (about 2 for a word that names
// the topic, 1 for one that usually signals it, 0.5 for a hint);
// severity (0..1) is how grave the mention is. Words are matched by their
// Snowball stems, so "robbed" and "robbery" need one entry each only when
// their stems differ; hyphenated words are split ("e-cigarettes" = "e
// cigarettes"). An exclusion word within three words of the term cancels
// it ("flu shot", "great shot"). A word written "=word" matches that
// exact word only, not its stem ("=bomb" is not "bombing"). Labels are the API's keys; "news" lines
// are the framing cues of negative_news, "newsneg" lines its negative
// events, "hate_target" and "hate_derog" the two halves of hate speech,
// "intense" and "educational" the severity cues, and "safe" lines
// idioms whose words count for no label ("killed it", "shoot me an
// email"). An exclusion written "!!word" cancels the term when the word
// occurs anywhere in the segment ("crash" in a segment about a server). Written from the
// labels' definitions and tuned on testdata/dev.txt only.
const lexiconText = `
accidents 2.0 0.5 car crash
accidents 2.0 0.5 car accident
accidents 2.0 0.6 plane crash
accidents 1.5 0.5 accident !by !on purpose
accidents 1.5 0.4 collision
accidents 1.5 0.4 collided
accidents 1.2 0.5 crash !course !diet !test !market !stock !!server !!app !!apps !!software !!computer !!laptop !!website !!browser !!database !!bug !!code !!program !!process !!system !!demo
accidents 1.2 0.5 crashed !market !stock !!server !!app !!apps !!software !!computer !!laptop !!website !!browser !!database !!bug !!code !!program !!process !!system !!demo
accidents 1.2 0.4 slammed into
accidents 1.2 0.4 lost control
accidents 2.0 0.6 derailed
accidents 1.5 0.6 =explosion !controlled !population !data
accidents 1.5 0.6 =explosions !controlled
accidents 1.2 0.6 =exploded
accidents 1.5 0.4 fell off
accidents 1.0 0.3 slipped
accidents 1.5 0.4 fell from
accidents 1.5 0.4 knocked off
accidents 1.5 0.5 run over
accidents 1.5 0.5 jackknifed
accidents 0.8 0.2 tripped
accidents 1.2 0.4 tipped over
accidents 1.2 0.4 overturned
accidents 1.5 0.5 collapsed !bank !market !economy !talks !deal !company !government !price
accidents 1.0 0.5 trapped
accidents 1.0 0.5 injured
accidents 1.0 0.5 injuring
accidents 1.0 0.4 wreck
accidents 1.5 0.5 pileup
accidents 1.5 0.5 hit by a car
accidents 1.5 0.6 gas leak
accidents 1.2 0.5 fire broke out
accidents 0.6 0.3 ambulance
accidents 1.5 0.1 fender bender
accidents 2.0 0.5 workplace accident
accidents 1.2 0.6 drowned

alcohol 2.0 0.2 beer !battered !batter
alcohol 2.0 0.2 prosecco
alcohol 2.0 0.2 margarita
alcohol 2.0 0.2 margaritas
alcohol 2.0 0.2 martini
alcohol 2.0 0.2 mojito
alcohol 2.0 0.3 bourbon
alcohol 2.0 0.3 brandy
alcohol 2.0 0.2 sangria
alcohol 1.5 0.3 scotch !tape
alcohol 2.0 0.2 wine !vinegar
alcohol 2.0 0.3 whiskey
alcohol 2.0 0.3 vodka
alcohol 2.0 0.3 tequila
alcohol 2.0 0.3 rum
alcohol 1.5 0.3 gin !rummy
alcohol 2.0 0.2 champagne
alcohol 1.5 0.2 cocktail
alcohol 2.0 0.3 liquor
alcohol 2.0 0.4 booze
alcohol 2.5 0.3 alcohol !free !wipes !rubbing
alcohol 2.5 0.5 alcoholic
alcohol 2.5 0.7 alcoholism
alcohol 2.0 0.5 drunk
alcohol 2.0 0.4 hangover
alcohol 2.0 0.2 brewery
alcohol 1.5 0.2 pub
alcohol 1.2 0.2 bartender
alcohol 1.0 0.2 bar !chocolate !code !graph !menu !tool !progress !exam !candy !search !scroll
alcohol 1.5 0.2 ale
alcohol 1.0 0.2 cider
alcohol 1.0 0.3 shots !flu !vaccine !photo !camera !screen
alcohol 1.0 0.3 drinking !water !coffee !tea !milk !juice !fountain
alcohol 1.0 0.3 drinks !soft !energy
alcohol 1.5 0.4 sober
alcohol 1.5 0.2 vineyard
alcohol 1.0 0.2 happy hour
alcohol 1.5 0.2 pint
alcohol 2.0 0.7 binge drinking
alcohol 2.0 0.6 heavy drinking
alcohol 2.0 0.8 drunk driving

financials 1.5 0 revenue
financials 0.6 0 quarterly
financials 1.5 0 earnings
financials 2.0 0 earnings per share
financials 1.2 0 profit
financials 1.2 0 profits
financials 2.0 0 net income
financials 2.0 0 net loss
financials 2.0 0 gross margin
financials 0.6 0 quarter !past !to !mile
financials 0.6 0 million dollars
financials 2.0 0 operating margin
financials 0.8 0 margin
financials 1.0 0 guidance !career !parental !school
financials 0.8 0 forecast !weather !rain !snow
financials 2.0 0 dividend
financials 2.0 0 buyback
financials 1.5 0 shareholders
financials 1.2 0 investors
financials 1.0 0 stock !in stock !out of stock !stock up
financials 2.0 0 stock price
financials 0.8 0 shares !screen
financials 1.5 0 acquisition
financials 1.5 0 merger
financials 1.5 0 fiscal year
financials 1.5 0 year over year
financials 2.0 0 ebitda
financials 1.5 0 cash flow
financials 0.6 0 debt
financials 1.5 0 term loan
financials 1.2 0 valuation
financials 2.0 0 ipo
financials 2.0 0 market cap
financials 2.0 0 balance sheet
financials 0.8 0 billion dollars
financials 0.8 0 analysts
financials 0.6 0 estimates
financials 1.0 0 full year

crime_violence 2.0 0.5 robbery
crime_violence 2.0 0.5 robbed
crime_violence 2.0 0.5 robber
crime_violence 1.5 0.3 stole
crime_violence 1.5 0.3 stolen
crime_violence 2.0 0.3 theft
crime_violence 2.0 0.3 thief
crime_violence 2.0 0.4 burglary
crime_violence 2.0 0.4 burglar
crime_violence 2.0 0.4 broke into
crime_violence 2.0 0.4 breaking into
crime_violence 2.5 0.9 murder
crime_violence 2.5 0.9 murdered
crime_violence 2.5 0.9 homicide
crime_violence 1.2 0.8 killed !!storm !!hurricane !!flood !!floods !!earthquake !!tornado !!wildfire !!wildfires !!crash !!accident !!avalanche !!tsunami !!volcano
crime_violence 1.2 0.7 shot !flu !vaccine !booster !photo !great !video !good !nice !camera !mug !long !best !big !jump !free !screen !took !take !whiskey !vodka !tequila !espresso !drink !drinks !bar !round
crime_violence 1.0 0.7 shooting !range !star !photo !video !film !movie !scene
crime_violence 2.0 0.8 stabbed
crime_violence 2.0 0.8 stabbing
crime_violence 2.0 0.6 assault !rifle !rifles !weapon !weapons
crime_violence 2.0 0.6 assaulted
crime_violence 1.5 0.4 arrested
crime_violence 1.2 0.4 arrest !cardiac
crime_violence 1.5 0.4 charged with
crime_violence 1.2 0.4 sentenced
crime_violence 1.2 0.4 prison
crime_violence 1.2 0.4 jail
crime_violence 0.6 0.3 police
crime_violence 1.0 0.4 suspect
crime_violence 0.8 0.4 victim
crime_violence 2.0 0.8 kidnapping
crime_violence 2.0 0.8 kidnapped
crime_violence 2.0 0.5 extortion
crime_violence 1.5 0.3 fraud
crime_violence 2.0 0.3 money laundering
crime_violence 2.0 0.2 vandalism
crime_violence 1.0 0.3 smashed
crime_violence 1.2 0.4 slashed !prices !price !budget !costs !rates !cost
crime_violence 2.0 0.3 vandalized
crime_violence 1.0 0.3 keyed
crime_violence 2.0 0.5 looted
crime_violence 2.0 0.5 looting
crime_violence 1.5 0.5 riot
crime_violence 1.2 0.5 gang
crime_violence 1.5 0.4 criminal
crime_violence 1.5 0.4 crime
crime_violence 2.5 1.0 rape
crime_violence 2.5 1.0 raped
crime_violence 1.5 0.6 beat up
crime_violence 1.2 0.4 punched
crime_violence 1.5 0.6 violence
crime_violence 1.2 0.6 violent
crime_violence 1.0 0.4 threatened
crime_violence 2.0 0.8 hostage
crime_violence 2.0 0.5 mugged
crime_violence 2.0 0.6 carjacking
crime_violence 1.0 0.5 smuggling
crime_violence 1.0 0.7 trafficking
crime_violence 2.0 0.8 hijacked

drugs 2.5 0.7 cocaine
drugs 2.5 0.8 heroin
drugs 2.5 0.8 fentanyl
drugs 2.5 0.7 meth
drugs 2.5 0.7 methamphetamine
drugs 2.0 0.6 ecstasy !state
drugs 2.5 0.6 mdma
drugs 2.5 0.6 lsd
drugs 2.0 0.7 opioids
drugs 2.0 0.7 opioid
drugs 2.0 0.9 overdose
drugs 2.0 0.9 overdosed
drugs 2.5 0.7 drug dealer
drugs 1.0 0.5 dealer !car !card !dealership
drugs 2.5 0.6 illegal drugs
drugs 1.2 0.5 drugs !prescription !generic !pharmaceutical !company !store
drugs 2.0 0.7 cartel
drugs 1.0 0.5 addicted
drugs 1.0 0.5 addiction
drugs 0.6 0.4 pills
drugs 2.0 0.6 narcotics
drugs 1.0 0.6 crack !the !code !joke !open
drugs 1.5 0.5 getting high
drugs 1.2 0.5 high on
drugs 2.0 0.6 snorting

gambling 2.5 0.4 casino
gambling 2.5 0.5 gambling
gambling 2.0 0.5 gamble
gambling 2.0 0.4 poker
gambling 2.5 0.4 blackjack
gambling 2.5 0.4 roulette
gambling 2.5 0.4 slot machines
gambling 1.5 0.4 slots
gambling 1.2 0.4 bet
gambling 1.5 0.4 bets
gambling 2.0 0.5 betting
gambling 2.0 0.5 wager
gambling 2.0 0.4 bookmaker
gambling 2.5 0.5 sports betting
gambling 2.0 0.3 lottery
gambling 1.5 0.3 jackpot
gambling 1.5 0.3 scratch cards
gambling 0.6 0.3 odds
gambling 2.0 0.4 =craps
gambling 1.0 0.3 horse race
gambling 1.0 0.2 bingo

hate_target 1 0 immigrants
hate_target 1 0 refugees
hate_target 1 0 foreigners
hate_target 1 0 muslims
hate_target 1 0 jews
hate_target 1 0 christians
hate_target 1 0 black people
hate_target 1 0 white people
hate_target 1 0 asians
hate_target 1 0 mexicans
hate_target 1 0 gay people
hate_target 1 0 gays
hate_target 1 0 lesbians
hate_target 1 0 trans people
hate_target 1 0 transgender people
hate_target 1 0 women
hate_target 1 0 those people
hate_target 1 0 these people
hate_target 1 0 that race
hate_target 1 0 their race
hate_target 1 0 religion
hate_target 1 0 ethnic group
hate_target 1 0 minorities
hate_target 1 0 disabled people
hate_target 1 0 their kind
hate_derog 1 0.7 vermin
hate_derog 1 0.6 animals !farm !zoo !wild !pets !stuffed
hate_derog 1 0.8 subhuman
hate_derog 1 0.6 inferior
hate_derog 1 0.6 evil
hate_derog 1 0.6 disgusting
hate_derog 1 0.6 filthy
hate_derog 1 0.5 stupid
hate_derog 1 0.5 lazy
hate_derog 1 0.7 parasites
hate_derog 1 0.6 scum
hate_derog 1 0.7 savages
hate_derog 1 0.5 by nature
hate_derog 1 0.6 burden
hate_derog 1 0.7 locked away
hate_derog 1 0.7 locked up
hate_derog 1 0.6 thrown out
hate_derog 1 0.6 go back where they came from
hate_derog 1 0.6 don't deserve
hate_derog 1 0.6 should be banned
hate_derog 1 0.6 deported
hate_derog 1 0.9 should be killed
hate_derog 1 0.9 wipe them out
hate_speech 2.0 0.7 racial slurs
hate_speech 2.0 0.7 racial slur
hate_speech 2.0 0.7 slurs

health_issues 1.5 0.4 diagnosed
health_issues 1.2 0.4 diagnosis
health_issues 1.5 0.5 disease
health_issues 2.0 0.8 cancer
health_issues 2.0 0.8 tumor
health_issues 2.0 0.5 diabetes
health_issues 1.5 0.4 blood pressure
health_issues 2.0 0.8 heart attack
health_issues 1.2 0.8 stroke !brush !luck !genius !of
health_issues 2.0 0.7 dementia
health_issues 2.0 0.7 alzheimer's
health_issues 2.0 0.4 migraine
health_issues 1.5 0.3 fever
health_issues 1.5 0.3 flu !shot !vaccine
health_issues 1.5 0.5 covid
health_issues 1.5 0.4 infection
health_issues 2.0 0.6 pneumonia
health_issues 2.0 0.4 bronchitis
health_issues 2.0 0.4 asthma
health_issues 1.5 0.6 depression !economic !great
health_issues 1.2 0.4 anxiety
health_issues 1.5 0.4 mental health
health_issues 1.2 0.3 symptoms
health_issues 1.0 0.4 pain
health_issues 1.0 0.4 chronic
health_issues 1.2 0.5 surgery
health_issues 2.0 0.8 chemotherapy
health_issues 2.0 0.8 chemo
health_issues 2.0 0.8 intensive care
health_issues 1.5 0.6 =hospitalized
health_issues 2.0 0.5 concussion
health_issues 1.5 0.4 fracture
health_issues 1.5 0.4 fractured
health_issues 1.2 0.3 sprained
health_issues 1.5 0.4 ligament
health_issues 1.5 0.3 physical therapy
health_issues 0.4 0.3 knee
health_issues 1.2 0.6 spinal
health_issues 0.8 0.4 broke his
health_issues 0.8 0.4 broke her
health_issues 0.8 0.4 broke my
health_issues 0.4 0.3 wrist
health_issues 0.4 0.3 ankle
health_issues 0.4 0.3 leg !pull
health_issues 0.4 0.3 hip
health_issues 0.4 0.3 ribs
health_issues 1.2 0.3 coughing
health_issues 1.2 0.3 cough
health_issues 1.5 0.3 sore throat
health_issues 1.5 0.3 nausea
health_issues 1.5 0.3 vomiting
health_issues 1.0 0.5 rehab
health_issues 1.5 0.6 cardiac
health_issues 1.2 0.5 liver
health_issues 0.6 0.5 kidney
health_issues 2.0 0.7 kidney failure
health_issues 2.0 0.8 heart failure
health_issues 2.0 0.8 organ failure
health_issues 0.8 0.2 medication
health_issues 0.6 0.2 prescribed
health_issues 0.6 0.3 patient
health_issues 1.5 0.5 illness
health_issues 1.2 0.3 sick !of !tired
health_issues 1.2 0.5 injury
health_issues 1.2 0.4 allergic
health_issues 1.5 0.5 obesity
health_issues 2.0 0.5 arthritis
health_issues 2.0 0.7 hiv
health_issues 2.0 0.6 hepatitis
health_issues 1.0 0.6 outbreak
health_issues 1.5 0.6 epidemic
health_issues 1.5 0.6 pandemic
health_issues 1.0 0.5 virus !computer !software
health_issues 0.8 0.6 overdosed

manga 3.0 0 manga
manga 2.5 0 =anime
manga 1.5 0 one piece
manga 3.0 0 naruto
manga 2.5 0 pokemon
manga 3.0 0 dragon ball
manga 3.0 0 sailor moon
manga 3.0 0 one punch man
manga 3.0 0 attack on titan
manga 2.0 0 studio ghibli
manga 1.5 0 cosplay
manga 2.5 0 otaku
manga 2.5 0 japanese comic
manga 2.5 0 japanese comics
manga 1.0 0 graphic novel
manga 2.5 0 demon slayer
manga 3.0 0 my hero academia
manga 2.5 0 pikachu

marijuana 3.0 0.4 marijuana
marijuana 3.0 0.3 cannabis
marijuana 2.0 0.4 weed !garden !weeds !pull !killer !lawn
marijuana 0.8 0.3 pot !coffee !flower !pan !plant !cooking !soup !luck !hot !tea !crock !pie !roast
marijuana 1.2 0.4 joint !venture !account !pain !effort !statement !replacement !team !session !custody !operation !knee !hip
marijuana 1.2 0.4 blunt !instrument !about
marijuana 2.0 0.3 edibles
marijuana 2.5 0.2 dispensary
marijuana 2.5 0.2 dispensaries
marijuana 3.0 0.4 thc
marijuana 1.5 0.2 cbd
marijuana 2.0 0.4 stoned
marijuana 2.5 0.4 bong
marijuana 3.0 0.4 ganja

disasters 2.5 0.7 hurricane
disasters 2.5 0.7 tornado
disasters 2.5 0.7 earthquake
disasters 2.5 0.8 tsunami
disasters 2.0 0.6 flood
disasters 2.0 0.6 flooding
disasters 1.5 0.6 flooded
disasters 2.5 0.7 wildfires
disasters 2.5 0.7 wildfire
disasters 2.5 0.7 forest fire
disasters 2.0 0.6 volcano
disasters 1.5 0.6 erupted
disasters 2.0 0.6 eruption
disasters 2.0 0.5 blizzard
disasters 2.0 0.6 avalanche
disasters 2.0 0.6 landslide
disasters 2.0 0.6 mudslide
disasters 2.0 0.5 drought
disasters 2.0 0.8 famine
disasters 2.5 0.7 typhoon
disasters 2.5 0.7 cyclone
disasters 1.5 0.4 heat wave
disasters 1.2 0.4 storm !brain !perfect
disasters 0.8 0.4 without power
disasters 0.8 0.4 power outage
disasters 1.5 0.6 flash floods
disasters 3.0 0.7 natural disaster
disasters 1.0 0.5 evacuate
disasters 1.0 0.5 evacuated
disasters 1.0 0.5 evacuation
disasters 1.5 0.5 state of emergency
disasters 1.0 0.5 washed away
disasters 2.0 0.5 aftershock
disasters 2.5 0.7 firestorm

news 1.0 0 police said
news 1.0 0 officials said
news 1.0 0 officials say
news 1.0 0 authorities said
news 0.8 0 according to
news 0.8 0 reported
news 1.0 0 reports say
news 0.6 0 confirmed
news 0.4 0 announced
news 0.8 0 reporters
news 0.8 0 spokesperson
news 0.8 0 spokesman
news 0.6 0 investigators
news 0.6 0 officials
news 0.6 0 authorities
newsneg 2.0 0 death toll
newsneg 1.2 0 layoffs
newsneg 1.2 0 laid off
newsneg 1.0 0 unemployment
newsneg 1.5 0 recession
newsneg 1.2 0 lost their jobs
newsneg 1.5 0 scandal
newsneg 1.2 0 crisis
newsneg 1.0 0 outbreak
newsneg 0.8 0 collapsed
newsneg 1.2 0 bankruptcy
newsneg 0.8 0 killed
newsneg 0.8 0 died
newsneg 1.0 0 deaths
newsneg 1.5 0 casualties
newsneg 0.8 0 victims
newsneg 0.8 0 riot
newsneg 0.6 0 protests
newsneg 0.8 0 shortage
newsneg 0.8 0 inflation

pornography 3.0 0.8 porn
pornography 3.0 0.8 pornography
pornography 3.0 0.8 pornographic
pornography 2.5 0.7 adult videos
pornography 2.0 0.6 adult content
pornography 2.5 0.7 adult film
pornography 2.5 0.7 adult films
pornography 2.5 0.6 sex scenes
pornography 2.5 0.6 sex scene
pornography 1.5 0.5 sex !same !education !offender
pornography 2.5 0.7 having sex
pornography 1.2 0.5 explicit
pornography 2.0 0.5 naked
pornography 2.0 0.5 nude
pornography 2.0 0.5 nudity
pornography 2.5 0.6 erotic
pornography 2.0 0.6 genitals
pornography 2.5 0.6 strip club
pornography 2.0 0.6 stripper
pornography 3.0 0.8 orgasm
pornography 2.0 0.5 horny
pornography 1.0 0.3 sexy
pornography 1.0 0.3 lingerie
pornography 1.2 0.4 hooking up
pornography 1.2 0.4 dirty jokes
pornography 1.2 0.5 obscene
pornography 2.5 0.8 x-rated
pornography 1.5 0.5 adults only
pornography 1.5 0.5 sexual !harassment !assault !orientation !abuse
pornography 0.8 0.6 pussy
pornography 0.8 0.6 cock
pornography 0.8 0.6 dick
pornography 0.8 0.6 tits
pornography 0.8 0.5 boobs
pornography 1.0 0.5 penis
pornography 1.0 0.5 vagina
nsfw 2.0 0 gore
nsfw 2.0 0 graphic violence
nsfw 2.0 0 decapitated

profanity 1.2 0.3 damn
profanity 1.5 0.3 the hell
profanity 0.8 0.3 hell !heaven
profanity 1.2 0.3 =crap
profanity 1.0 0.3 bloody !nose !mary
profanity 2.0 0.6 shitshow
profanity 2.0 0.5 goddamn
profanity 1.5 0.4 screw you

sensitive_social_issues 2.5 0.6 abortion
sensitive_social_issues 2.5 0.6 racism
sensitive_social_issues 1.5 0.6 racist
sensitive_social_issues 2.5 0.6 police brutality
sensitive_social_issues 2.5 0.4 pay gap
sensitive_social_issues 2.5 0.5 same-sex marriage
sensitive_social_issues 2.5 0.5 gay marriage
sensitive_social_issues 2.0 0.5 transgender
sensitive_social_issues 2.5 0.5 gun control
sensitive_social_issues 1.5 0.4 =immigration
sensitive_social_issues 1.2 0.4 refugees
sensitive_social_issues 2.5 0.6 death penalty
sensitive_social_issues 2.5 0.6 capital punishment
sensitive_social_issues 2.0 0.4 civil rights
sensitive_social_issues 2.5 0.5 affirmative action
sensitive_social_issues 2.0 0.5 discrimination
sensitive_social_issues 1.0 0.3 climate change
sensitive_social_issues 0.8 0.3 protests
sensitive_social_issues 0.8 0.3 protest
sensitive_social_issues 2.0 0.5 lgbt
sensitive_social_issues 2.0 0.4 religious freedom
sensitive_social_issues 2.5 0.6 euthanasia
sensitive_social_issues 2.5 0.7 assisted suicide
sensitive_social_issues 1.5 0.8 suicide !bombing !bomber !attack !vest
sensitive_social_issues 2.0 0.5 border wall
sensitive_social_issues 2.0 0.5 deportation
sensitive_social_issues 2.0 0.4 feminism
sensitive_social_issues 2.0 0.4 women's rights
sensitive_social_issues 2.5 0.5 pro-life
sensitive_social_issues 2.5 0.5 pro-choice
sensitive_social_issues 1.0 0.3 controversial
sensitive_social_issues 2.0 0.6 sexual harassment
sensitive_social_issues 2.5 0.6 black lives matter
sensitive_social_issues 2.5 0.8 white supremacy
sensitive_social_issues 2.0 0.6 segregation
sensitive_social_issues 1.5 0.4 inequality
sensitive_social_issues 1.5 0.4 homelessness
sensitive_social_issues 0.8 0.3 divided
sensitive_social_issues 0.5 0.2 debate
sensitive_social_issues 2.0 0.4 ban books
sensitive_social_issues 2.0 0.4 book bans
sensitive_social_issues 1.5 0.4 race and gender
sensitive_social_issues 2.0 0.4 gender identity
sensitive_social_issues 2.0 0.4 race relations

terrorism 3.0 0.9 terrorist
terrorism 3.0 0.9 terrorists
terrorism 3.0 0.9 terrorism
terrorism 2.0 0.9 terror
terrorism 3.0 0.9 isis
terrorism 3.0 0.9 al qaeda
terrorism 3.0 0.9 jihadist
terrorism 3.0 0.9 jihadists
terrorism 2.0 0.8 extremists
terrorism 2.0 0.8 extremist
terrorism 3.0 1.0 suicide bombing
terrorism 3.0 1.0 suicide bomber
terrorism 2.0 0.9 =bombing
terrorism 2.0 0.9 =bombings
terrorism 3.0 0.9 car bomb
terrorism 2.0 0.9 hijacked
terrorism 3.0 1.0 mass shooting
terrorism 0.8 0.8 gunman
terrorism 2.0 0.8 militant
terrorism 2.0 0.8 militants
terrorism 2.0 0.8 claimed responsibility
terrorism 2.5 0.8 radicalized
terrorism 2.0 0.8 insurgents
terrorism 2.5 1.0 beheaded
terrorism 1.5 0.7 planning attacks
terrorism 0.5 0.6 attack !heart !panic !asthma !anxiety
terrorism 0.5 0.6 attacks !heart !panic !asthma !anxiety

tobacco 3.0 0.4 cigarette
tobacco 3.0 0.4 cigarettes
tobacco 2.5 0.3 cigar
tobacco 2.5 0.3 cigars
tobacco 3.0 0.4 tobacco
tobacco 3.0 0.4 nicotine
tobacco 3.0 0.4 vape
tobacco 3.0 0.4 vaping
tobacco 2.0 0.4 smoking !weed !pot !marijuana !joint !gun !cannabis
tobacco 1.0 0.3 smoked !salmon !meat !ham !weed !fish !cheese !joint !cannabis !marijuana
tobacco 2.0 0.4 smoker
tobacco 2.0 0.4 smokers
tobacco 2.0 0.4 quit smoking
tobacco 2.0 0.4 hookah
tobacco 1.5 0.3 ashtray
tobacco 3.0 0.5 secondhand smoke
tobacco 2.5 0.4 juul

weapons 2.5 0.6 gun !glue !nail !water !spray !shy
weapons 2.5 0.6 guns !glue !nail !water !spray
weapons 3.0 0.6 pistol
weapons 3.0 0.6 rifle
weapons 3.0 0.6 rifles
weapons 3.0 0.8 assault rifle
weapons 3.0 0.6 shotgun
weapons 3.0 0.6 shotguns
weapons 3.0 0.6 revolver
weapons 3.0 0.6 handgun
weapons 3.0 0.6 firearm
weapons 3.0 0.6 firearms
weapons 3.0 0.6 ammunition
weapons 2.5 0.6 ammo
weapons 2.0 0.6 bullets !points !point !list
weapons 1.5 0.6 bullet !point !points !train !journal !list
weapons 1.5 0.5 knife !fork !butter !bread !!chop !!slice !!onion !!onions !!recipe !!cooking !!kitchen !!vegetables !!garlic !!cutting
weapons 1.5 0.5 knives !forks !!chop !!slice !!onion !!onions !!recipe !!cooking !!kitchen !!vegetables !!garlic !!cutting
weapons 2.5 0.5 sword
weapons 2.5 0.5 swords
weapons 3.0 0.7 missile
weapons 3.0 0.7 missiles
weapons 3.0 0.7 torpedo
weapons 3.0 0.8 grenade
weapons 1.0 0.8 =bomb !bath !photo !test !exam !da
weapons 1.0 0.8 =bombs !bath !photo
weapons 2.0 0.8 =explosives
weapons 3.0 0.5 shooting range
weapons 2.5 0.8 opened fire
weapons 3.0 0.8 machine gun
weapons 3.0 1.0 nuclear weapon
weapons 3.0 0.7 weapon
weapons 3.0 0.7 weapons
weapons 2.0 0.6 armed with
weapons 2.5 0.5 crossbow
weapons 3.0 0.6 machete
weapons 1.5 0.5 baseball bat
weapons 2.0 0.5 spears
weapons 2.0 0.5 spear

safe 1 0 killed it
safe 1 0 killing it
safe 1 0 kill the process
safe 1 0 kill the app
safe 1 0 kill switch
safe 1 0 bombed my
safe 1 0 bombed the
safe 1 0 absolute bomb
safe 1 0 the bomb
safe 1 0 shoot me an email
safe 1 0 shoot me a message
safe 1 0 take a shot at
safe 1 0 long shot
safe 1 0 dying to
safe 1 0 fire up
safe 1 0 fired up
safe 1 0 fire drill

intense 1 0 severe
intense 1 0 severely
intense 1 0 massive
intense 1 0 brutal
intense 1 0 brutally
intense 1 0 deadly
intense 1 0 fatal
intense 1 0 dozens
intense 1 0 hundreds
intense 1 0 thousands
intense 1 0 killed
intense 1 0 killing
intense 1 0 dead
intense 1 0 deaths
intense 1 0 graphic
intense 1 0 horrific
intense 1 0 devastating
intense 1 0 extreme
intense 1 0 critically
intense 1 0 destroyed
educational 1 0 history of
educational 1 0 research
educational 1 0 studies
educational 1 0 education
educational 1 0 prevention
educational 1 0 awareness
educational 1 0 chemistry
educational 1 0 lecture
educational 1 0 course
`
