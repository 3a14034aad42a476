// Tool-poisoning cues in other languages than English: the same attacks as tool-poisoning.ts (instructions set
// aside, things kept from the user, confirmation skipped, other tools called untrustworthy, output taken as
// commands, secret files or the conversation put into a parameter or sent to a URL or an address, hidden copies), written in
// Spanish, German, French, Portuguese, Italian, Dutch, Polish, Russian, Ukrainian, Turkish, Chinese, Japanese,
// Korean, Arabic, Hindi, Indonesian and Vietnamese. The sentence model is English-only, so these are phrases.
// Phrases are written as a speaker writes them and folded at load as the screened text is (foldText: accents and
// combining marks dropped, lower case), so both meet in one form. A phrase may hold `(a|b)` and `?`, and end in `$`
// where its last word must end; a space in it matches a run of white space. Words of space-separated scripts start at a word boundary and may go on (a stem:
// `передай` holds `передайте`); Chinese and Japanese phrases match anywhere. Every gap is bounded and stays in its
// sentence, so each pattern costs linear time.
import { foldText, latinLookalike } from '@axle/scrub';
import type { NamedPattern } from './result.js';

/** One cue's phrases, by language (the language names only document the table). */
type Phrases = Readonly<Record<string, readonly string[]>>;

/** "Ignore the previous instructions." */
const IGNORE_PREVIOUS: Phrases = {
  es: [
    'ignora (todas )?las instrucciones (anteriores|previas)',
    'olvida (todas )?las instrucciones (anteriores|previas)',
  ],
  de: [
    'ignoriere (alle )?(vorherigen|bisherigen|fruheren) anweisungen',
    'vergiss (alle )?(vorherigen|bisherigen) anweisungen',
  ],
  fr: [
    'ignore(z)? (toutes )?les (instructions|consignes) (precedentes|anterieures)',
    'oublie(z)? (toutes )?les instructions precedentes',
  ],
  pt: ['ignore (todas )?as instrucoes anteriores', 'esqueca (todas )?as instrucoes anteriores'],
  it: ['ignora (tutte )?le istruzioni precedenti', 'dimentica (tutte )?le istruzioni precedenti'],
  nl: ['negeer (alle )?(eerdere|vorige) instructies', 'vergeet (alle )?(eerdere|vorige) instructies'],
  pl: [
    'zignoruj (wszystkie )?(poprzednie|wczesniejsze) (instrukcje|polecenia|wytyczne)',
    'ignoruj (wszystkie )?(poprzednie|wczesniejsze) (instrukcje|polecenia|wytyczne)',
    'zapomnij (wszystkie )?(poprzednie|wczesniejsze) (instrukcje|polecenia|wytyczne)',
  ],
  ru: [
    'игнорируй (все )?(предыдущие|прежние) (инструкции|указания)',
    'забудь (все )?(предыдущие|прежние) (инструкции|указания)',
  ],
  uk: ['ігноруй (усі |всі )?попередні (інструкції|вказівки)', 'забудь (усі |всі )?попередні (інструкції|вказівки)'],
  tr: ['önceki (tüm )?talimatları (yok say|görmezden gel|unut)'],
  zh: [
    '忽略(你)?(之前|以前|先前|此前|上面)(收到|接收|得到|给出)?的(所有|全部)?(指令|指示|说明)',
    '忽略所有(之前|以前|先前)的(指令|指示)',
  ],
  ja: ['(以前|前|これまで|今まで)の指示(を|は)(すべて|全て)?無視'],
  ko: ['이전의? (모든 )?(지시|지침|명령)(를|을|은|들을)? ?(모두 )?무시'],
  ar: ['تجاهل (جميع |كل )?التعليمات السابقة'],
  hi: ['पिछले (सभी )?निर्देशों को (अनदेखा|नजरअंदाज|नज़रअंदाज़)'],
  id: ['abaikan (semua )?(instruksi|perintah) sebelumnya'],
  vi: ['bỏ qua (tất cả )?(các )?(hướng dẫn|chỉ dẫn|chỉ thị) (trước|trước đó)'],
};

/** "Do not tell the user", "without the user knowing". */
const HIDE_FROM_USER: Phrases = {
  es: [
    'no (le )?(digas|menciones|informes|comuniques|cuentes) (nada )?al usuario',
    'sin que el usuario (lo )?(sepa|note|vea)',
  ],
  de: [
    '(sage|sag|erzahle|teile) (dem|den) (nutzer|benutzer|anwender)(n)? nichts',
    'ohne dass der (nutzer|benutzer|anwender) es (merkt|weiß|bemerkt)',
    'verschweige (dem|den) (nutzer|benutzer)',
  ],
  fr: [
    'ne (le )?(dis|dites|mentionne|mentionnez|signale|signalez) (rien )?(pas )?a l.utilisateur',
    'sans que l.utilisateur (le )?(sache|remarque|voie)',
  ],
  pt: ['nao (diga|mencione|informe|conte) (nada )?ao usuario', 'sem que o usuario (saiba|perceba|veja)'],
  it: ['non (dire|menzionare|riferire) (nulla )?all.utente', 'senza che l.utente (lo )?(sappia|noti|veda)'],
  nl: ['vertel (het )?de gebruiker (dit )?niet', 'zonder dat de gebruiker (het )?(weet|merkt|ziet)'],
  pl: ['nie (mów|informuj|wspominaj) (o tym )?użytkownik', 'bez wiedzy uzytkownika'],
  ru: ['не (говори|сообщай|рассказывай|упоминай) (об этом )?пользовател', 'без ведома пользователя'],
  uk: ['не (кажи|повідомляй|згадуй) (про це )?користувач', 'без відома користувача'],
  tr: ['kullanıcıya (bundan )?(söyleme|bahsetme|bildirme)', 'kullanıcının haberi olmadan'],
  zh: [
    '不要(告诉|通知|提醒)用户',
    '不要让用户(知道|发现|察觉)',
    '(不要|别|勿)向用户(透露|提及|说明|提起)',
    '用户(不需要|无需|不必)知道',
  ],
  ja: ['ユーザー(に|には)(伝え|言わ|知らせ|教え)(ない|ず)', 'ユーザーに知られ(ない|ず)'],
  ko: ['사용자에게 (알리지|말하지|언급하지) (마|말)'],
  ar: ['لا تخبر المستخدم', 'دون (علم|أن يعلم) المستخدم'],
  hi: ['उपयोगकर्ता को (यह )?(न|मत) (बताएं|बताएँ|बताना|बताओ)'],
  id: ['jangan (beri tahu|memberi tahu|beritahu|katakan kepada) pengguna', 'tanpa sepengetahuan pengguna'],
  vi: ['(đừng|không) (nói|báo|cho biết) (với|cho) người dùng', 'không (để|cho) người dùng biết'],
};

/** "Do not ask for confirmation", "no need to ask for it", "the user has already agreed" (not "without asking": a feature). */
const SKIP_CONSENT: Phrases = {
  es: [
    'no (le )?(pidas|solicites) (la )?confirmación',
    '(no es necesario|no hace falta) (pedir|solicitar) (la )?confirmación',
    'nunca (le )?(pidas|preguntes) al usuario',
    'el usuario ya (ha dado|dio) (su )?(permiso|consentimiento|autorización)',
    'el usuario ya (ha autorizado|autorizó|ha aceptado|aceptó|ha consentido|consintió)',
  ],
  de: [
    'frage (den (nutzer|benutzer) )?(nicht|nie|niemals) nach (bestätigung|erlaubnis|zustimmung)',
    'keine (bestätigung|rückfrage|zustimmung) (einholen|anfordern)',
    'der (nutzer|benutzer) hat bereits (zugestimmt|eingewilligt|erlaubt)',
  ],
  fr: [
    'ne demande(z)? (pas|jamais) (de )?(confirmation|autorisation)',
    'ne demande(z)? jamais à l.utilisateur',
    'l.utilisateur a déjà (accepté|autorisé|consenti|donné son accord)',
  ],
  pt: [
    'não (peça|solicite) (a )?confirmação',
    '(não é necessário|não precisa|não há necessidade de) (pedir|solicitar) (a )?confirmação',
    'nunca pergunte ao usuário',
    'o usuário já (autorizou|concordou|aceitou|consentiu)',
  ],
  it: [
    'non chiedere (conferma|autorizzazione|all.utente)',
    '(non è necessario|non serve) chiedere conferma',
    'l.utente ha già (acconsentito|autorizzato|accettato)',
  ],
  nl: [
    'vraag (de gebruiker )?(niet|nooit) om (bevestiging|toestemming)',
    'de gebruiker heeft al (toestemming gegeven|ingestemd|goedgekeurd)',
  ],
  pl: ['nie pytaj (użytkownika )?o (potwierdzenie|zgodę)', 'użytkownik (już )?wyraził zgodę'],
  ru: [
    'не (спрашивай|запрашивай) (у пользователя )?(подтверждени|разрешени)',
    'пользователь уже (согласился|разрешил|дал согласие)',
  ],
  uk: ['не (питай|запитуй) (у користувача )?(підтвердження|дозволу)', 'користувач вже (погодився|дозволив|дав згоду)'],
  tr: ['onay isteme$', 'kullanıcıya sorma$', 'kullanıcı zaten (onay verdi|izin verdi|kabul etti)'],
  zh: [
    '不要(询问|征求|请求)用户',
    '(无需|不需要|不必|不用)(再)?(向用户|询问用户)(确认|征求)',
    '用户已(经)?(同意|授权|许可)',
  ],
  ja: ['確認(を求め|し)ないでください', 'ユーザーは(既に|すでに)(同意|許可|承認)'],
  ko: ['확인을 (요청하지|묻지|구하지) 마', '사용자(는|가) 이미 (동의|허락|승인)'],
  ar: ['لا تطلب (التأكيد|الإذن|تأكيد|إذن)', 'وافق المستخدم (مسبقا|بالفعل)'],
  hi: ['पुष्टि न मांगें', 'उपयोगकर्ता (पहले ही|पहले से) (सहमत|अनुमति)'],
  id: ['jangan (meminta|menanyakan) (konfirmasi|izin)', 'pengguna sudah (menyetujui|mengizinkan|setuju)'],
  vi: ['không cần (hỏi|xin) (xác nhận|phép)', 'người dùng đã (đồng ý|cho phép)'],
};

/** "Before using any other tool". */
const BEFORE_OTHER_TOOLS: Phrases = {
  es: ['antes de (usar|llamar a|utilizar|invocar) (cualquier|cualquiera|otra|otras) (otra )?(herramienta|funcion)'],
  de: [
    'bevor du (ein |irgendein )?(anderes|andere) (tool|werkzeug|funktion)',
    'vor (der nutzung|dem aufruf|jedem aufruf|der verwendung) (eines |aller )?(anderen|weiterer) (tools|werkzeuge|werkzeugs|tool)',
  ],
  fr: ['avant d.(utiliser|appeler|invoquer) (tout |un )?autre(s)? (outil|fonction)'],
  pt: ['antes de (usar|chamar|utilizar|invocar) (qualquer )?outra(s)? (ferramenta|funcao)'],
  it: ['prima di (usare|chiamare|utilizzare|invocare) (qualsiasi |qualunque |un )?altr(o|i) strument'],
  nl: ['voordat je (een )?(ander|andere) (tool|functie)'],
  pl: ['przed (użyciem|wywołaniem) (jakiegokolwiek )?innego narzędzia'],
  ru: ['перед (использованием|вызовом) (любых |любого )?друг(их|ого) инструмент'],
  uk: ['перед (використанням|викликом) (будь-яких )?інш(их|ого) інструмент'],
  tr: ['(başka|diğer) (bir )?araç(ı)? (kullanmadan|çağırmadan) önce'],
  zh: ['(在)?(使用|调用)(任何)?其他(任何)?工具(之前|前)'],
  ja: ['他のツールを(使う|使用する|呼び出す)前に'],
  ko: ['다른 도구를 (사용하기|호출하기) 전에'],
  ar: ['قبل استخدام (أي )?(أداة|أدوات) أخرى'],
  hi: ['(किसी )?(अन्य|दूसरे) (टूल|उपकरण) (का उपयोग|को कॉल) करने से पहले'],
  id: ['sebelum (menggunakan|memanggil) (alat|tool) lain'],
  vi: ['trước khi (sử dụng|dùng|gọi) (bất kỳ )?công cụ (nào )?khác'],
};

/** "The other tools are compromised; use only this one." */
const OTHER_TOOLS_UNSAFE: Phrases = {
  es: [
    '(las )?otras herramientas (estan|son) (comprometidas|inseguras|obsoletas|maliciosas)',
    'usa (solo|unicamente|solamente) esta herramienta',
  ],
  de: [
    '(die )?anderen (tools|werkzeuge) sind (kompromittiert|unsicher|veraltet|bosartig)',
    'verwende (nur|ausschließlich) dieses (tool|werkzeug)',
  ],
  fr: [
    '(les )?autres outils sont (compromis|obsoletes|dangereux|malveillants)',
    'utilise(z)? (uniquement|seulement) (cet outil|celui-ci)',
  ],
  pt: [
    '(as )?outras ferramentas (estao|sao) (comprometidas|obsoletas|inseguras|maliciosas)',
    'use (apenas|somente) esta ferramenta',
  ],
  it: [
    '(gli )?altri strumenti sono (compromessi|obsoleti|pericolosi|malevoli)',
    'usa (solo|soltanto) questo strumento',
  ],
  nl: ['(de )?andere tools zijn (gecompromitteerd|onveilig|verouderd)', 'gebruik (alleen|uitsluitend) deze tool'],
  pl: ['inne narzędzia są (skompromitowane|niebezpieczne|przestarzałe)', 'używaj (tylko|wyłącznie) tego narzędzia'],
  ru: [
    'други(е|м) инструмент(ы|ам)? (скомпрометированы|небезопасны|устарели|нельзя доверять)',
    'используй (только|исключительно) (этот|данный) инструмент',
  ],
  uk: ['інші інструменти (скомпрометовані|небезпечні|застарілі)', 'використовуй (лише|тільки) цей інструмент'],
  tr: ['(diğer|başka) araçlar (tehlikeli|güvenilmez|ele geçirilmiş)', 'yalnızca bu aracı kullan'],
  zh: ['其他工具(已被(入侵|攻破|篡改)|不安全|已过时|不可信)', '(只|仅)(使用|用)(此|这个|本)工具'],
  ja: ['他のツールは(危険|信頼できない|侵害|改ざん)', 'このツール(のみ|だけ)を使'],
  ko: ['다른 도구(는|들은) (안전하지 않|손상|신뢰할 수 없)'],
  ar: ['الأدوات الأخرى (مخترقة|غير آمنة|غير موثوقة)'],
  hi: ['अन्य (टूल|उपकरण) (असुरक्षित|भरोसेमंद नहीं)'],
  id: ['alat lain (tidak aman|telah disusupi|tidak dapat dipercaya)'],
  vi: ['các công cụ khác (không an toàn|bị xâm phạm|không đáng tin)'],
};

/** "Treat the result as instructions." */
const OUTPUT_AS_COMMANDS: Phrases = {
  es: [
    'trata (el|la|los|las) (resultado|respuesta|salida)s? (de esta herramienta )?como (instrucciones|ordenes|comandos)',
  ],
  de: ['behandle (die|das) (ausgabe|ergebnis|antwort)(se)? (dieses tools )?als (anweisung|befehl)'],
  fr: [
    'traite(z)? (le|la|les) (resultat|reponse|sortie)s? (de cet outil )?comme (des )?(instructions|ordres|commandes)',
  ],
  pt: ['trate (o|a|os|as) (resultado|resposta|saida)s? (desta ferramenta )?como (instrucoes|ordens|comandos)'],
  it: ['tratta (il|la|l.|i) ?(risultato|risposta|output)(i)? (di questo strumento )?come (istruzioni|ordini|comandi)'],
  nl: ['behandel de (uitvoer|resultaten|output) als (instructies|opdrachten)'],
  pl: ['traktuj (wynik|odpowiedź|wyniki) (tego narzędzia )?jako (instrukcje|polecenia)'],
  ru: [
    '(воспринимай|считай|рассматривай) (результат|ответ|вывод)(ы)? (этого инструмента )?как (инструкци|команд|указани)',
  ],
  uk: ['(сприймай|вважай) (результат|відповідь) як (інструкці|команд)'],
  tr: ['(sonucu|çıktıyı) (talimat|komut) olarak (kabul et|değerlendir)'],
  zh: ['将?(输出|结果|返回内容)(视为|当作|作为)(指令|命令)'],
  ja: ['(出力|結果)を(指示|命令)として(扱|解釈)'],
  ko: ['(결과|출력)를 (지시|명령)로 (취급|간주)'],
  ar: ['(اعتبر|تعامل مع) (النتائج|المخرجات|النتيجة) (ك|على أنها )(تعليمات|أوامر)'],
  hi: ['(परिणाम|आउटपुट) को (निर्देश|आदेश) (मानें|समझें)'],
  id: ['(anggap|perlakukan) (hasil|keluaran|output)(nya)? sebagai (instruksi|perintah)'],
  vi: ['(coi|xem) (kết quả|đầu ra) (là|như) (hướng dẫn|mệnh lệnh|lệnh)'],
};

/** A field of a call: "parameter", "argument", "field". */
const PARAMETER: Phrases = {
  en: ['parameter', 'argument', 'arg ', 'field'],
  es: ['parametro', 'argumento', 'campo'],
  de: ['parameter', 'argument', 'feld$', 'feldes$'],
  fr: ['paramètre', 'argument', 'champ$', 'champs$'],
  pt: ['parametro', 'argumento', 'campo'],
  it: ['parametro', 'argomento', 'campo'],
  nl: ['parameter', 'argument', 'veld$'],
  pl: ['parametr', 'argument', 'pole$', 'polu$', 'pola$'],
  ru: ['параметр', 'аргумент', 'поле', 'поля'],
  uk: ['параметр', 'аргумент', 'поле', 'поля'],
  tr: ['parametre', 'argüman', 'alan$', 'alanı', 'alanın'],
  zh: ['参数', '字段'],
  ja: ['パラメータ', 'パラメーター', '引数', 'フィールド'],
  ko: ['매개변수', '파라미터', '인자', '인수', '필드'],
  ar: ['معامل', 'وسيط', 'حقل', 'المعامل', 'الوسيط', 'الحقل'],
  hi: ['पैरामीटर', 'आर्ग्युमेंट', 'फ़ील्ड', 'फील्ड'],
  id: ['parameter', 'argumen', 'kolom', 'bidang'],
  vi: ['tham số', 'đối số', 'trường'],
};

/** The conversation or the user's earlier messages. */
const CONVERSATION: Phrases = {
  es: [
    '(historial|registro) (completo )?de (la )?(conversacion|charla|chat)',
    'toda la conversación',
    'la conversación (completa|entera)',
    'mensajes anteriores del usuario',
  ],
  de: [
    '(gesprachs|chat|konversations|unterhaltungs)verlauf',
    '(gesamte|ganze|komplette) (unterhaltung|konversation|gesprach|chat)',
    '(vorherigen|bisherigen|fruheren) nachrichten des (nutzers|benutzers)',
  ],
  fr: [
    'historique (complet )?de (la )?(conversation|discussion)',
    'toute la conversation',
    'la conversation (complète|entière)',
    'messages precedents de l.utilisateur',
  ],
  pt: [
    'historico (completo )?da (conversa|conversacao)',
    'toda a conversa',
    'a conversa (inteira|completa)',
    'mensagens anteriores do usuario',
  ],
  it: [
    '(cronologia|storia) (completa )?della (conversazione|chat)',
    '(tutta la|l.intera) conversazione',
    'messaggi precedenti dell.utente',
  ],
  nl: ['(gespreks|chat)geschiedenis', '(hele|volledige) gesprek', 'eerdere berichten van de gebruiker'],
  pl: ['histori(a|ę|i) (całej )?(rozmowy|czatu)', 'całą rozmowę', 'poprzednie wiadomości użytkownika'],
  ru: [
    'истори(я|ю) (всего )?(переписки|диалога|разговора|чата)',
    'весь (диалог|разговор|чат)',
    'предыдущие сообщения пользователя',
  ],
  uk: ['істор(ія|ію) (розмови|листування|чату|діалогу)', 'всю розмову', 'попередні повідомлення користувача'],
  tr: ['(sohbet|konuşma) geçmişi', '(tüm|bütün) (sohbet|konuşma)', 'kullanıcının önceki mesajları'],
  zh: ['(对话|聊天|会话)(历史|记录|内容)', '完整(的)?(对话|会话)', '用户(之前|以前|先前)的(消息|提问)'],
  ja: ['(会話|チャット)(履歴|の履歴|の内容|全体)', 'ユーザーの(これまで|以前)の(メッセージ|発言)'],
  ko: ['대화 (기록|내역|내용|전체)', '이전 메시지'],
  ar: ['سجل المحادثة', 'المحادثة (كاملة|بالكامل)', 'رسائل المستخدم السابقة'],
  hi: ['(बातचीत|चैट) (का|की) (इतिहास|पूरी)', 'पूरी बातचीत', 'पिछले संदेश'],
  id: ['riwayat (percakapan|obrolan|chat)', 'seluruh (percakapan|obrolan)', 'pesan sebelumnya'],
  vi: ['lịch sử (trò chuyện|hội thoại|chat)', 'toàn bộ (cuộc )?(trò chuyện|hội thoại)', 'tin nhắn trước'],
};

/** Secrets by their common nouns: "API keys", "passwords", "tokens", "credentials". */
const SECRETS: Phrases = {
  es: ['claves? (de )?api', 'contrasenas?', 'tokens?', 'credenciales'],
  de: ['api-?schlussel', 'passworter', 'passwort', 'kennworter', 'tokens?', 'zugangsdaten'],
  fr: ['cles? (d.)?api', 'mots de passe', 'jetons?', 'tokens?', 'identifiants'],
  pt: ['chaves? (de )?api', 'senhas?', 'tokens?', 'credenciais'],
  it: ['chiavi? api', 'password', 'token', 'credenziali'],
  nl: ['api-?sleutels?', 'wachtwoorden', 'tokens?', 'inloggegevens'],
  pl: ['klucz(e|y)? api', 'hasła', 'tokeny?', 'dane logowania'],
  ru: ['api-?ключ', 'ключи api', 'пароли', 'токены?', 'учетные данные'],
  uk: ['api-?ключ', 'паролі', 'токени?', 'облікові дані'],
  tr: ['api anahtar', 'şifreler', 'parolalar', 'token', 'kimlik bilgileri'],
  zh: ['(api )?密钥', '密码', '令牌', '凭据', '凭证', 'token'],
  ja: ['apiキー', 'パスワード', 'トークン', '認証情報'],
  ko: ['api 키', '비밀번호', '토큰', '자격 증명'],
  ar: ['مفاتيح api', 'مفتاح api', 'كلمات المرور', 'بيانات الاعتماد', 'الرموز'],
  hi: ['api कुंजी', 'पासवर्ड', 'टोकन', 'क्रेडेंशियल'],
  id: ['kunci api', 'kata sandi', 'token', 'kredensial'],
  vi: ['khóa api', 'mật khẩu', 'token', 'thông tin đăng nhập'],
};

/** "...that you have seen in this conversation". */
const SEEN_IN_CONVERSATION: Phrases = {
  es: ['(que )?(hayas|has) visto', 'en esta (conversacion|sesion|charla)'],
  de: ['(die )?du gesehen hast', 'in diesem (gesprach|chat)', 'in dieser (unterhaltung|sitzung|konversation)'],
  fr: ['que tu as vu', 'que vous avez vu', 'dans cette (conversation|session|discussion)'],
  pt: ['que (voce )?(viu|tenha visto)', 'nesta (conversa|sessao)'],
  it: ['che hai visto', 'in questa (conversazione|sessione|chat)'],
  nl: ['die je (hebt )?gezien', 'in dit gesprek', 'in deze (sessie|chat)'],
  pl: ['które widziałeś', 'w tej (rozmowie|sesji)'],
  ru: ['которые ты видел', 'в этом (диалоге|разговоре|чате|сеансе)'],
  uk: ['які ти бачив', 'у цій (розмові|сесії)', 'в цій (розмові|сесії)'],
  tr: ['gördüğün', 'bu (sohbette|konuşmada|oturumda)'],
  zh: ['(对话|会话|聊天)中(出现|看到|提到)'],
  ja: ['(この)?会話(中|の中)で(見|出て|登場)'],
  ko: ['(이 )?대화에서 (본|나온|언급된)'],
  ar: ['في هذه المحادثة'],
  hi: ['इस बातचीत में'],
  id: ['dalam percakapan ini', 'yang (sudah )?kamu lihat'],
  vi: ['trong cuộc (trò chuyện|hội thoại) này'],
};

/** Hidden copies: "blind copy", "BCC". */
const HIDDEN_COPY: Phrases = {
  es: ['copia oculta', 'cco$'],
  de: ['blindkopie', 'bcc$'],
  fr: ['copie cachée', 'cci$'],
  pt: ['cópia oculta', 'cco$'],
  it: ['copia nascosta', 'ccn$'],
  nl: ['blinde kopie'],
  pl: ['ukryta kopi'],
  ru: ['скрыт(ую|ая) копи'],
  uk: ['прихован(у|а) копі'],
  tr: ['gizli kopya', 'bilgi gizli'],
  zh: ['密送', '暗送'],
  ja: ['bccで', 'ひそかにコピー'],
  ko: ['숨은 참조'],
  ar: ['نسخة مخفية'],
  hi: ['छिपी (प्रति|कॉपी)'],
  id: ['salinan tersembunyi'],
  vi: ['bản sao ẩn'],
};

/** "System": a tag posing as a channel above the description, `<SISTEMA>` or `[СИСТЕМА]`. */
const SYSTEM_WORD: Phrases = {
  es: ['sistema'],
  de: ['system', 'systemnachricht'],
  fr: ['système'],
  nl: ['systeem'],
  pl: ['system'],
  ru: ['система', 'системное сообщение'],
  uk: ['система'],
  tr: ['sistem'],
  zh: ['系统', '系统提示'],
  ja: ['システム'],
  ko: ['시스템'],
  ar: ['النظام'],
  hi: ['सिस्टम'],
  id: ['sistem'],
  vi: ['hệ thống'],
};
/** "Important", "instructions": tag words that pose as a priority above the description, in angle brackets only. */
const IMPORTANT_WORD: Phrases = {
  es: ['importante', 'instrucciones'],
  de: ['wichtig', 'anweisung'],
  fr: ['instructions'],
  it: ['importante', 'istruzioni'],
  nl: ['belangrijk'],
  pl: ['ważne'],
  ru: ['важно'],
  uk: ['важливо'],
  tr: ['önemli'],
  zh: ['重要'],
  ja: ['重要'],
  ko: ['중요'],
  ar: ['مهم'],
  hi: ['महत्वपूर्ण'],
  id: ['penting'],
  vi: ['quan trọng'],
};

/** Files and variables that hold secrets, in any language: private keys (not a `.pub`), `.env`, `$OPENAI_API_KEY`. */
const SECRET_FILE = String.raw`(?:id_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|~\/\.(?:aws\/credentials|netrc|pgpass|git-credentials|npmrc|docker\/config\.json|kube\/config)|(?<![\w/.-])\.env\b|\$[a-z0-9_]*(?:api_?key|token|secret|password)\b)`;
/** A URL or an e-mail address (its local part bounded and started at its start, so a long word costs no rescans). */
const URL_OR_ADDRESS = String.raw`(?:https?:\/\/|(?<![\w.+-])[\w.+-]{1,64}@[\w-]+\.[a-z])`;
/** Sentence ends of the scripts above (Latin, CJK, Devanagari, Arabic). */
const GAP = String.raw`[^.!?\n。！？।؟]`;

/** Letters and digits: a phrase of a space-separated script starts where none precedes it. */
const LETTER = String.raw`[\p{L}\p{N}]`;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * The phrase folded as screened text is, its spaces as runs of white space, a word boundary before it (and after it
 * with `$`). A letter with a Latin lookalike matches either: folding maps a word's Cyrillic letters to Latin ones
 * when the word mixes the two scripts, so one Latin `o` in `игнорируй` must not hide it.
 */
function phrasePattern(phrase: string): string {
  const whole = phrase.endsWith('$');
  const folded = [...foldText(whole ? phrase.slice(0, -1) : phrase).text]
    .map((c) => {
      const latin = latinLookalike(c);
      return latin === undefined ? c : `[${c}${latin}]`;
    })
    .join('')
    .replace(/\s+/g, String.raw`\s+`);
  const ended = whole ? `${folded}(?!${LETTER})` : folded;
  return UNSPACED.test(folded) ? ended : `(?<!${LETTER})${ended}`;
}

/** One alternation of every language's phrases. */
const any = (table: Phrases): string => `(?:${Object.values(table).flat().map(phrasePattern).join('|')})`;

const near = (a: string, b: string, gap: number) => `${a}${GAP}{0,${gap}}${b}|${b}${GAP}{0,${gap}}${a}`;
const pattern = (name: string, source: string): NamedPattern => ({ name, re: new RegExp(source, 'u') });

/**
 * The cues that speak to whoever reads the text, whatever it is (instructions set aside, things kept from the user,
 * confirmation skipped): the injection screen reads these in learnings too.
 */
export const READER_CUES_OTHER_LANGUAGES: readonly NamedPattern[] = [
  pattern('ignore_instructions_other_language', any(IGNORE_PREVIOUS)),
  pattern('hidden_from_user_other_language', any(HIDE_FROM_USER)),
  pattern('consent_bypass_other_language', any(SKIP_CONSENT)),
];

export const MULTILINGUAL_POISONING_PATTERNS: readonly NamedPattern[] = [
  ...READER_CUES_OTHER_LANGUAGES,
  pattern('tool_sequencing_other_language', any(BEFORE_OTHER_TOOLS)),
  pattern('tool_shadowing_other_language', any(OTHER_TOOLS_UNSAFE)),
  pattern('output_as_command_other_language', any(OUTPUT_AS_COMMANDS)),
  // A secret file or variable, or the conversation, put into a parameter or sent to a URL or an address.
  pattern(
    'harvest_other_language',
    near(`(?:${SECRET_FILE}|${any(CONVERSATION)})`, `(?:${any(PARAMETER)}|${URL_OR_ADDRESS})`, 100),
  ),
  // "the API keys you have seen in this conversation"
  pattern('secret_harvest_other_language', near(any(SECRETS), any(SEEN_IN_CONVERSATION), 60)),
  pattern('covert_copy_other_language', `${any(HIDDEN_COPY)}${GAP}{0,80}${URL_OR_ADDRESS}`),
  pattern(
    'fake_priority_tag_other_language',
    `<\\/?(?:${any(SYSTEM_WORD)}|${any(IMPORTANT_WORD)})>|\\[${any(SYSTEM_WORD)}\\]`,
  ),
];
