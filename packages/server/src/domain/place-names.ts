// Words of place and language names: capitalised in a request ("translate into Spanish", "flights to New York",
// "holidays in Germany"), yet they say where or in which language, not which product. A skill named after a place or a
// language (`spanish-random-words`, `transport-for-london-england`) is no more likely the answer for it. Written from
// general knowledge: languages, countries, US states, continents, and cities with over about 3 million people or
// known to most developers; a multi-word name contributes each word (`new`, `york`: capitalised inside a request,
// `New` and `San` begin place names). Lower case.
const LANGUAGES =
  'english spanish french german italian portuguese dutch russian chinese mandarin cantonese japanese korean arabic ' +
  'hindi bengali urdu punjabi tamil telugu marathi turkish polish swedish norwegian danish finnish icelandic greek ' +
  'hebrew thai vietnamese indonesian malay tagalog filipino ukrainian czech slovak hungarian romanian bulgarian ' +
  'serbian croatian slovenian lithuanian latvian estonian persian farsi swahili amharic yoruba zulu afrikaans latin ' +
  'catalan basque galician welsh irish';
const COUNTRIES =
  'afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan bahamas bahrain ' +
  'bangladesh barbados belarus belgium belize benin bhutan bolivia bosnia botswana brazil brunei bulgaria burkina ' +
  'burundi cambodia cameroon canada chad chile china colombia comoros congo croatia cuba cyprus czechia denmark ' +
  'djibouti dominica ecuador egypt salvador eritrea estonia eswatini ethiopia fiji finland france gabon gambia ' +
  'georgia germany ghana greece grenada guatemala guinea guyana haiti honduras hungary iceland india indonesia iran ' +
  'iraq ireland israel italy jamaica japan jordan kazakhstan kenya kiribati kosovo kuwait kyrgyzstan laos latvia ' +
  'lebanon lesotho liberia libya liechtenstein lithuania luxembourg madagascar malawi malaysia maldives mali malta ' +
  'mauritania mauritius mexico micronesia moldova monaco mongolia montenegro morocco mozambique myanmar namibia ' +
  'nauru nepal netherlands holland zealand nicaragua niger nigeria macedonia norway oman pakistan palau palestine ' +
  'panama paraguay peru philippines poland portugal qatar romania russia rwanda samoa senegal serbia seychelles ' +
  'sierra leone singapore slovakia slovenia somalia spain sri lanka sudan suriname sweden switzerland syria taiwan ' +
  'tajikistan tanzania thailand togo tonga trinidad tobago tunisia turkey turkmenistan tuvalu uganda ukraine ' +
  'emirates uae uk usa uruguay uzbekistan vanuatu vatican venezuela vietnam yemen zambia zimbabwe england ' +
  'scotland wales britain korea arabia kong';
const REGIONS =
  'europe european asia asian africa african america american americas oceania antarctica arctic caribbean ' +
  'scandinavia balkans british canadian australian indian brazilian mexican alabama alaska arizona arkansas ' +
  'california colorado connecticut delaware florida hawaii idaho illinois indiana iowa kansas kentucky louisiana ' +
  'maine maryland massachusetts michigan minnesota mississippi missouri montana nebraska nevada hampshire jersey ' +
  'carolina dakota ohio oklahoma oregon pennsylvania tennessee texas utah vermont virginia washington wisconsin ' +
  'wyoming bavaria catalonia ontario quebec alberta';
const CITIES =
  'new san los las saint london paris tokyo berlin madrid rome york angeles francisco chicago boston seattle miami houston dallas atlanta ' +
  'denver philadelphia vegas sydney melbourne toronto vancouver montreal mumbai delhi bangalore bengaluru kolkata ' +
  'chennai beijing shanghai shenzhen guangzhou osaka kyoto seoul bangkok jakarta manila hanoi dubai doha riyadh ' +
  'istanbul cairo lagos nairobi johannesburg amsterdam barcelona lisbon vienna prague budapest warsaw moscow ' +
  'stockholm oslo copenhagen helsinki dublin brussels zurich geneva munich hamburg frankfurt milan naples athens ' +
  'bogota lima santiago aires paulo janeiro karachi lahore dhaka tehran baghdad';

/** Every word of the names above. */
export const PLACE_AND_LANGUAGE_WORDS: ReadonlySet<string> = new Set(
  [LANGUAGES, COUNTRIES, REGIONS, CITIES].join(' ').split(' '),
);

/** Every word of the city names above but `new`, which begins product names too (New Relic). */
export const CITY_WORDS: ReadonlySet<string> = new Set(CITIES.split(' ').filter((w) => w !== 'new'));
